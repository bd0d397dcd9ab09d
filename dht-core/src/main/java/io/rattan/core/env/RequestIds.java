package io.rattan.core.env;

import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/** Where a node draws the ids of its requests from, given its random source ({@link NodeEnv#random()}). */
public enum RequestIds {
    /** Each id is drawn from the node's random source: a CSPRNG in a real node, so nobody can guess one. */
    FROM_NODE_RANDOM {
        @Override
        public RandomGenerator stream(RandomGenerator nodeRandom) {
            return nodeRandom;
        }
    },
    /**
     * A stream of their own, seeded by one draw from the node's random source, so that drawing ids does not shift the
     * node's other random choices: a seeded world replays the same choices whatever requests it makes.
     */
    OWN_STREAM {
        @Override
        public RandomGenerator stream(RandomGenerator nodeRandom) {
            return new SplittableRandom(nodeRandom.nextLong());
        }
    };

    /** The generator request ids are drawn from; called once, when the node is built. */
    public abstract RandomGenerator stream(RandomGenerator nodeRandom);
}
