package io.cmdemux.observer;

import io.cmdemux.netdev.NativeException;
import io.cmdemux.observer.nldev.NldevClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Looks for every kernel part the observer uses, without changing anything: tracefs, kprobe events, BTF for
 * vmlinux and the RDMA CM modules, the ib_cm and rdma_cm tracepoints, and NETLINK_RDMA.
 */
public final class FeatureCheck {
    /** ENOPROTOOPT is not it: a kernel without the protocol says EPROTONOSUPPORT (netlink_create). */
    private static final int EPROTONOSUPPORT = 93;
    /** cm_trace.h's TRACE_SYSTEM is ib_cma (ib_cm's events), cma_trace.h's is rdma_cma. */
    public static final String IB_CM_EVENTS = "ib_cma";
    public static final String RDMA_CM_EVENTS = "rdma_cma";

    private final Path tracefs;
    private final Path btf;
    private final Path sysModule;

    private final Supplier<Optional<KernelConfig>> configs;

    public FeatureCheck(Path tracefs, Path btf, Path sysModule, Supplier<Optional<KernelConfig>> configs) {
        this.tracefs = tracefs;
        this.btf = btf;
        this.sysModule = sysModule;
        this.configs = configs;
    }

    public static FeatureCheck host() {
        return new FeatureCheck(TraceInstance.TRACEFS, Path.of("/sys/kernel/btf"), Path.of("/sys/module"),
                KernelConfig::host);
    }

    public Features check() {
        List<Features.Missing> m = new ArrayList<>();
        boolean mounted = Files.isDirectory(tracefs.resolve("events"))
                && Files.isDirectory(tracefs.resolve("instances"));
        Optional<KernelConfig> config = configs.get();
        boolean infiniband = config.map(c -> c.enabled("CONFIG_INFINIBAND_CM")
                || c.enabled("CONFIG_INFINIBAND")).orElse(true);
        netlinkRdma(m, infiniband);
        if (!mounted) {
            m.add(new Features.Missing("tracefs", tracefs + " is not mounted",
                    "mount -t tracefs nodev " + tracefs));
            // Without tracefs the kernel's build options still tell whether kprobe events can exist.
            config.filter(c -> !c.enabled("CONFIG_KPROBE_EVENTS")).ifPresent(c -> m.add(new Features.Missing(
                    "kprobe events", c.source() + " has no CONFIG_KPROBE_EVENTS",
                    "a kernel with CONFIG_KPROBE_EVENTS")));
        } else {
            if (!Files.exists(tracefs.resolve("kprobe_events"))) {
                m.add(new Features.Missing("kprobe events", "no " + tracefs.resolve("kprobe_events"),
                        "a kernel with CONFIG_KPROBE_EVENTS"));
            }
            List<String> absent = new ArrayList<>();
            for (String sys : List.of(IB_CM_EVENTS, RDMA_CM_EVENTS)) {
                if (!Files.isDirectory(tracefs.resolve("events").resolve(sys))) {
                    absent.add("events/" + sys);
                }
            }
            if (!absent.isEmpty()) {
                m.add(new Features.Missing("ib_cm/rdma_cm tracepoints", "no " + String.join(", ", absent) + " in "
                        + tracefs, "modprobe rdma_cm (it loads ib_cm)"));
            }
        }
        if (!Files.isReadable(btf.resolve("vmlinux"))) {
            m.add(new Features.Missing("BTF", "no " + btf.resolve("vmlinux"), "a kernel with CONFIG_DEBUG_INFO_BTF"));
        }
        List<String> unloaded = new ArrayList<>();
        List<String> noBtf = new ArrayList<>();
        for (String mod : List.of("ib_cm", "rdma_cm")) {
            if (!Files.isDirectory(sysModule.resolve(mod))) {
                unloaded.add(mod);
            } else if (!Files.isReadable(btf.resolve(mod))) {
                noBtf.add(mod);
            }
        }
        if (!unloaded.isEmpty()) {
            // Their tracepoints (events/ib_cma, events/rdma_cma) exist only while they are loaded.
            String part = "ib_cm/rdma_cm and their tracepoints";
            if (infiniband) {
                m.add(new Features.Missing(part, "not loaded: " + String.join(", ", unloaded), "modprobe rdma_cm"));
            } else {
                m.add(new Features.Missing(part, config.get().source() + " has no CONFIG_INFINIBAND",
                        "a kernel with CONFIG_INFINIBAND, CONFIG_INFINIBAND_ADDR_TRANS (ib_cm, rdma_cm)"));
            }
        }
        if (!noBtf.isEmpty()) {
            m.add(new Features.Missing("module BTF", "no " + btf + "/" + String.join(", ", noBtf),
                    "a kernel with CONFIG_DEBUG_INFO_BTF_MODULES"));
        }
        return new Features(m);
    }

    private static void netlinkRdma(List<Features.Missing> m, boolean infiniband) {
        // Opening is the test: the protocol exists once ib_core has registered it (rdma_nl_init).
        NldevClient c = null;
        try {
            c = NldevClient.open();
        } catch (NativeException e) {
            if (e.errno() == EPROTONOSUPPORT) {
                m.add(new Features.Missing("NETLINK_RDMA", "socket(AF_NETLINK, NETLINK_RDMA): EPROTONOSUPPORT",
                        infiniband ? "modprobe ib_core (rdma_cm loads it)" : "a kernel with CONFIG_INFINIBAND"));
            } else {
                m.add(new Features.Missing("NETLINK_RDMA", e.getMessage(), "run as root"));
            }
        } finally {
            if (c != null) {
                c.close();
            }
        }
    }
}
