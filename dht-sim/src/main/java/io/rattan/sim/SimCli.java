package io.rattan.sim;

import io.rattan.sim.experiment.OpenDhtTableCommand;
import io.rattan.sim.experiment.ScaleCommand;
import io.rattan.sim.experiment.SessionChurnCommand;
import io.rattan.sim.faults.FaultsCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code ./rattan sim}: experiments in the discrete-event simulator, on the same node code as the real node. */
@Command(name = "rattan sim", mixinStandardHelpOptions = true, version = "rattan sim 0.1.0",
        description = "Experiments in the discrete-event simulator: unmodified Rattan nodes on a simulated "
                + "wide-area network with slow nodes, in virtual time, deterministic for a seed.",
        subcommands = {OpenDhtTableCommand.class, ScaleCommand.class, FaultsCommand.class,
                SessionChurnCommand.class})
public final class SimCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new SimCli()).execute(args));
    }
}
