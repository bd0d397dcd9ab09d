package io.rattan.client;

/**
 * What a compare-and-swap ({@link RattanClient#compareAndSet}) came to: swapped, or not, with the sequence the key's
 * root holds for the value.
 *
 * @param swapped    true when the new version is stored (or was already, by this same swap retried)
 * @param currentSeq the sequence held after the call (unsigned): the new one when swapped; else the one the root
 *                   holds, or null when it holds none
 * @param replicas   how many replicas held the new version when the swap was acknowledged; 0 when not swapped
 */
public record SwapResult(boolean swapped, Long currentSeq, int replicas) {
}
