package io.cmdemux.observer.btf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The running kernel's BTF as /sys/kernel/btf holds it: {@code vmlinux} and one split file per module, each on
 * top of vmlinux alone (a module's file repeats the types of other modules that it uses).
 */
public final class KernelBtf {
    public static final Path SYS_KERNEL_BTF = Path.of("/sys/kernel/btf");

    private final Path dir;
    private final Btf vmlinux;

    private KernelBtf(Path dir, Btf vmlinux) {
        this.dir = dir;
        this.vmlinux = vmlinux;
    }

    /** Reads {@code dir/vmlinux}; module files are read when asked for. */
    public static KernelBtf open(Path dir) throws IOException, BtfException {
        Path v = dir.resolve("vmlinux");
        try {
            return new KernelBtf(dir, Btf.parse(Files.readAllBytes(v)));
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(v.toString(), null, "no vmlinux BTF (a kernel with CONFIG_DEBUG_INFO_BTF)");
        }
    }

    public Btf vmlinux() {
        return vmlinux;
    }

    /** The types of a module, e.g. {@code rdma_cm}, on top of vmlinux's. */
    public Btf module(String name) throws IOException, BtfException {
        Path m = dir.resolve(name);
        try {
            return Btf.parse(Files.readAllBytes(m), vmlinux);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(m.toString(), null,
                    "no BTF for module " + name + " (modprobe " + name + "; CONFIG_DEBUG_INFO_BTF_MODULES)");
        }
    }
}
