package io.cmdemux.ingress.resolve;

/**
 * KERNEL reproduces the Linux RDMA CM (ARCHITECTURE.md §4); NETSTACK walks the synthesised packet up
 * the receive path the way the netns seed proposes (§3).
 */
public enum ResolverMode {
    KERNEL,
    NETSTACK;

    public String cliName() {
        return name().toLowerCase();
    }
}
