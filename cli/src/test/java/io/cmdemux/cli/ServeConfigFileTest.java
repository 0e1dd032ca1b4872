package io.cmdemux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `serve --config FILE`: the file names settings as the long options do, the command line wins over it,
 * and a name that is no setting stops the daemon before it starts. The daemon is never started here: a
 * soft port on a link that does not exist makes it stop at once, naming the link, which is how the test
 * sees where a value came from.
 */
class ServeConfigFileTest {
    @TempDir
    Path dir;

    private Path config(String text) throws Exception {
        Path f = dir.resolve("serve.conf");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void aSettingFromTheFileIsUsedAndTheCommandLineWins() throws Exception {
        Path f = config("# the soft port\nrdma-port = soft0=cmdemux-nolink1\nmetrics = 127.0.0.1:0\ncontrol-socket = "
                + dir.resolve("s.sock") + "\n");
        Cli.Result fromFile = Cli.run("serve", "--config", f.toString());
        assertThat(fromFile.err()).contains("there is no link cmdemux-nolink1");
        assertThat(fromFile.exit()).isEqualTo(ExitCode.ENVIRONMENT);

        Cli.Result overridden = Cli.run("serve", "--config", f.toString(), "--rdma-port", "soft0=cmdemux-nolink2");
        assertThat(overridden.err()).contains("there is no link cmdemux-nolink2").doesNotContain("cmdemux-nolink1");
        assertThat(overridden.exit()).isEqualTo(ExitCode.ENVIRONMENT);
    }

    @Test
    void aNameThatIsNoSettingIsAUsageErrorThatListsTheSettings() throws Exception {
        Path f = config("rdma-port = soft0=cmdemux-nolink1\ncontrol-socket-grop = rdma\n");
        Cli.Result r = Cli.run("serve", "--config", f.toString());
        assertThat(r.exit()).isEqualTo(ExitCode.USAGE);
        assertThat(r.err()).contains("'control-socket-grop' is no setting of serve", "control-socket-group",
                "max-listeners-per-consumer")
                .doesNotContain("no link");
        // --config itself cannot be set from a file, nor can --help.
        assertThat(Cli.run("serve", "--config", config("config = /etc/other.conf\n").toString()).err())
                .contains("'config' is no setting");
    }

    @Test
    void aMissingFileIsTheHostsProblem() {
        Cli.Result r = Cli.run("serve", "--config", dir.resolve("none.conf").toString());
        assertThat(r.exit()).isEqualTo(ExitCode.ENVIRONMENT);
        assertThat(r.err()).contains("none.conf: no such file");
    }
}
