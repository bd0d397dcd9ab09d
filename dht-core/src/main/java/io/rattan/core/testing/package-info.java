/**
 * Switches that make the node logic wrong on purpose, for the fault simulator's proof that its checker catches what
 * it must. Nothing outside the fault simulator and tests may use this package.
 */
package io.rattan.core.testing;
