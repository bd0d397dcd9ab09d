package io.rattan.bench.harness;

import java.util.SplittableRandom;

/**
 * Which mode the next open-loop get uses: successive random permutations of all modes, so that every mode gets
 * the same share and meets the same conditions, as in the OpenDHT study's rounds. One thread only.
 */
final class ModeOrder {

    private final int[] order;
    private final SplittableRandom random;
    private int next;

    ModeOrder(int modes, SplittableRandom random) {
        this.order = new int[modes];
        this.random = random;
        this.next = modes;
    }

    int next() {
        if (next == order.length) {
            shuffle(order, random);
            next = 0;
        }
        return order[next++];
    }

    /** Fills {@code a} with 0..n-1 in a uniformly random order (Fisher–Yates). */
    static void shuffle(int[] a, SplittableRandom random) {
        for (int i = 0; i < a.length; i++) {
            a[i] = i;
        }
        for (int i = a.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
}
