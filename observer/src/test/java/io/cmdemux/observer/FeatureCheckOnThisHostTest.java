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
            assertThat(f.summary()).contains("EPROTONOSUPPORT").contains("modprobe");
        }
    }

    @Test
    void btfAndTheCmModulesAreReportedAsTheFilesystemShowsThem() {
        assertThat(missing("BTF")).isEqualTo(!Files.isReadable(Path.of("/sys/kernel/btf/vmlinux")));
        boolean modules = Files.isDirectory(Path.of("/sys/module/ib_cm"))
                && Files.isDirectory(Path.of("/sys/module/rdma_cm"));
        assertThat(missing("the ib_cm and rdma_cm modules")).isEqualTo(!modules);
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
    void theSummaryIsOneLineThatNamesEveryMissingPart() {
        assertThat(f.summary()).doesNotContain("\n");
        for (Features.Missing m : f.missing()) {
            assertThat(f.summary()).contains(m.part()).contains(m.remedy());
        }
        assertThat(f.complete()).isEqualTo(f.missing().isEmpty());
    }
}
