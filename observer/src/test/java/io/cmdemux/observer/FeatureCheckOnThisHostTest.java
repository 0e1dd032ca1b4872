package io.cmdemux.observer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The feature check on the machine the tests run on, against what the machine shows by other means: a kernel
 * whose ib_core is not loaded has no NETLINK_RDMA (the socket fails with EPROTONOSUPPORT), one without
 * /sys/kernel/btf/vmlinux has no BTF, and so on. Nothing is mocked: each statement could fail on a host that
 * lies about itself.
 */
class FeatureCheckOnThisHostTest {
    private final Features f = FeatureCheck.host().check();

    private boolean missing(String part) {
        return f.missing().stream().anyMatch(m -> m.part().equals(part));
    }

    @Test
    void netlinkRdmaIsMissingExactlyWhenIbCoreIsNotLoaded() {
        boolean ibCore = Files.isDirectory(Path.of("/sys/module/ib_core"));
        assertThat(missing("NETLINK_RDMA")).as(f.summary()).isEqualTo(!ibCore);
        if (!ibCore) {
            assertThat(f.summary()).contains("EPROTONOSUPPORT");
        }
    }

    @Test
    void btfAndTheCmModulesAreReportedAsTheFilesystemShowsThem() {
        assertThat(missing("BTF")).isEqualTo(!Files.isReadable(Path.of("/sys/kernel/btf/vmlinux")));
        boolean modules = Files.isDirectory(Path.of("/sys/module/ib_cm"))
                && Files.isDirectory(Path.of("/sys/module/rdma_cm"));
        assertThat(missing("ib_cm/rdma_cm and their tracepoints")).isEqualTo(!modules);
    }

    @Test
    void tracefsIsMissingExactlyWhenItIsNotMountedAndThenTheRemedyMountsIt() {
        boolean mounted = Files.isDirectory(TraceInstance.TRACEFS.resolve("instances"));
        assertThat(missing("tracefs")).isEqualTo(!mounted);
        if (!mounted) {
            assertThat(f.summary()).contains("mount -t tracefs nodev /sys/kernel/tracing");
        }
    }

    @Test
    void kprobeEventsAreMissingWhenTheKernelsConfigSaysSoWhileTracefsIsUnmounted() throws Exception {
        Path gz = Path.of("/proc/config.gz");
        if (Files.isDirectory(TraceInstance.TRACEFS.resolve("instances")) || !Files.isReadable(gz)) {
            boolean mounted = Files.isDirectory(TraceInstance.TRACEFS.resolve("instances"));
            assertThat(missing("kprobe events"))
                    .isEqualTo(mounted && !Files.exists(TraceInstance.TRACEFS.resolve("kprobe_events")));
            return;
        }
        // zcat, not our reader: an independent look at the same file.
        Process p = new ProcessBuilder("zcat", gz.toString()).start();
        String config = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("zcat %s", gz).isZero();
        boolean kprobeEvents = config.lines().anyMatch(l -> l.equals("CONFIG_KPROBE_EVENTS=y"));
        assertThat(missing("kprobe events")).as(f.summary()).isEqualTo(!kprobeEvents);
        boolean infiniband = config.lines().anyMatch(l -> l.startsWith("CONFIG_INFINIBAND=")
                && !l.endsWith("=n"));
        if (!infiniband) {
            assertThat(f.summary()).contains("has no CONFIG_INFINIBAND");
        }
    }

    @Test
    void theSummaryIsOneLineThatNamesEveryMissingPart() {
        assertThat(f.summary()).doesNotContain("\n");
        for (Features.Missing m : f.missing()) {
            assertThat(f.summary()).contains(m.part()).contains(m.remedy());
        }
        assertThat(f.complete()).isEqualTo(f.missing().isEmpty());
    }
}
