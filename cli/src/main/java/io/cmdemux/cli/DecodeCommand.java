package io.cmdemux.cli;

import io.cmdemux.render.FrameView;
import io.cmdemux.render.TopologyView;
import io.cmdemux.ingress.capture.CaptureReader;
import io.cmdemux.ingress.capture.CapturedFrame;
import io.cmdemux.netdev.MalformedException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "decode", mixinStandardHelpOptions = true,
        description = {"Decode every RoCEv2 CM message in a pcap or pcapng capture (Ethernet, raw IP or Linux cooked).",
                "Frames that are not CM messages say why and at which byte. Exit 0 even when frames are bad;",
                "3 when the file cannot be read as a capture."})
final class DecodeCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "pcap or pcapng capture")
    Path file;

    @Option(names = "--json", description = "one JSON object per frame")
    boolean json;

    @Option(names = {"-v", "--verbose"}, description = "every field of every message")
    boolean verbose;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (InputStream in = open(file); CaptureReader reader = openCapture(in)) {
            long last = 0;
            try {
                for (CapturedFrame f = reader.next(); f != null; f = reader.next()) {
                    last = f.index();
                    if (json) {
                        out.println(TopologyView.JSON.writeValueAsString(FrameView.json(f)));
                    } else if (verbose) {
                        out.print(FrameView.verbose(f));
                    } else {
                        out.println(FrameView.line(f));
                    }
                }
            } catch (MalformedException e) {
                // The frames before the damage were printed; say where the file breaks and stop.
                if (json) {
                    out.println(TopologyView.JSON.writeValueAsString(TopologyView.JSON.createObjectNode()
                            .put("frame", last + 1).put("error", "capture file: " + e.reason())
                                    .put("fileOffset", e.offset())));
                }
                err.println("cmdemux: " + file + ": capture ends in damage after frame " + last + ": "
                        + e.getMessage());
            }
        }
        out.flush();
        return ExitCode.OK;
    }

    private static InputStream open(Path file) {
        try {
            return Files.newInputStream(file);
        } catch (NoSuchFileException e) {
            throw new EnvironmentException(file + ": no such file", e);
        } catch (IOException e) {
            throw new EnvironmentException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    private CaptureReader openCapture(InputStream in) throws IOException {
        try {
            return new CaptureReader(in);
        } catch (MalformedException e) {
            in.close();
            throw new EnvironmentException(file + " is not a pcap or pcapng capture (" + e.getMessage() + ")", e);
        }
    }
}
