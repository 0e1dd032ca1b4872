package io.cmdemux.namespaces.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Throw-away namespaces and host links with a per-test prefix, so that tests never collide with
 * each other or with the host, and {@link #close()} removes all of them even after a failure.
 */
public final class Netns implements AutoCloseable {
    private final String prefix;
    private final List<String> namespaces = new ArrayList<>();
    private final List<String> hostLinks = new ArrayList<>();

    public Netns(String tag) {
        Host.requireRoot();
        Host.requireCommand("ip", "iproute2");
        // Interface names are limited to 15 bytes, so keep the prefix short.
        this.prefix = tag + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
    }

    public String prefix() {
        return prefix;
    }

    /** A prefixed name: {@code name("pod1")} → "tx3fpod1". */
    public String name(String suffix) {
        return prefix + suffix;
    }

    /** Creates namespace {@code prefix+suffix} and returns its name. */
    public String add(String suffix) {
        String n = name(suffix);
        Host.sh("ip", "netns", "add", n);
        namespaces.add(n);
        Host.sh("ip", "-n", n, "link", "set", "lo", "up");
        return n;
    }

    /** Records a host link to delete on close (deleting one end of a veth removes both). */
    public String hostLink(String suffix) {
        String n = name(suffix);
        hostLinks.add(n);
        return n;
    }

    public void forget(String namespace) {
        namespaces.remove(namespace);
    }

    @Override
    public void close() {
        for (String l : hostLinks) {
            Host.run("ip", "link", "del", l);
        }
        for (String n : namespaces) {
            Host.run("ip", "netns", "del", n);
        }
    }
}
