package io.rattan.sim.experiment;

import io.rattan.core.wan.LatencyMatrix;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options every sim command shares: the network its nodes sit on and the seed that replays a run. */
final class WorldOptions {

    @Option(names = "--matrix", paramLabel = "FILE", description = "RTT matrix (TSV, ms). Default: the shipped "
            + "PlanetLab 490-host matrix.")
    Path matrixFile;

    @Option(names = "--seed", paramLabel = "S", description = "Seed for everything (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    /** The matrix given, or the shipped one. */
    LatencyMatrix matrix() throws IOException {
        return matrixFile == null ? LatencyMatrix.planetLab() : LatencyMatrix.load(matrixFile);
    }
}
