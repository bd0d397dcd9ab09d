/**
 * Values with an owner: the exact bytes an owner signs ({@link io.rattan.core.owned.SignedBytes}), the owner's
 * stamp on a value ({@link io.rattan.api.OwnerStamp}) and the Ed25519 signatures that make and check it
 * ({@link io.rattan.core.owned.OwnerSignatures}). Pure computation: no state, no clock. The rule that decides which
 * version of an owned value a replica keeps is the node's ({@code OwnedRule} in {@code core.node}).
 */
package io.rattan.core.owned;
