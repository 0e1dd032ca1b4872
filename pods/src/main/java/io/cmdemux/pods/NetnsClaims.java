package io.cmdemux.pods;

import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsId;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Checks what a message or a state file says about a namespace against the kernel: the path must
 * be a namespace file (nsfs, the same st_dev as our own), it must not be the host's, and it must
 * still be the namespace the claim names. The path is one in the daemon's own mount namespace,
 * the host's, where the CNI plugin found it too.
 */
public final class NetnsClaims {
    private NetnsClaims() {}

    /** Why a claim was refused. */
    public static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;
        private final boolean gone;
        private final boolean replaced;

        Refused(String message, boolean gone, boolean replaced) {
            super(message);
            this.gone = gone;
            this.replaced = replaced;
        }

        /** The path does not exist (any more). */
        public boolean gone() {
            return gone;
        }

        /** The path opens another namespace than the one claimed: the claimed one is gone, or the claim is false. */
        public boolean replaced() {
            return replaced;
        }
    }

    /** The namespace at {@code path}, which must be a pod's (not the host's). */
    public static NetnsId resolve(String path, NetnsId host) throws Refused {
        if (path == null || !path.startsWith("/")) {
            throw new Refused("the netns path must be absolute, not '" + path + "'", false, false);
        }
        NetnsId id;
        try {
            id = NetnsDiscovery.idOf(Path.of(path));
        } catch (java.nio.file.NoSuchFileException e) {
            throw new Refused(path + " does not exist", true, false);
        } catch (IOException | UnsupportedOperationException e) {
            throw new Refused("cannot stat " + path + ": " + e.getMessage(), false, false);
        }
        if (id.dev() != host.dev()) {
            throw new Refused(path + " is not a network namespace file (st_dev " + id.dev() + ", nsfs is " + host.dev()
                    + ")", false, false);
        }
        if (id.equals(host)) {
            throw new Refused(path + " is the host's own network namespace, not a pod's", false, false);
        }
        return id;
    }

    /** As {@link #resolve}, and the namespace there must be the one with {@code claimedInode}. */
    public static NetnsId check(String path, long claimedInode, NetnsId host) throws Refused {
        NetnsId id = resolve(path, host);
        if (id.inode() != claimedInode) {
            throw new Refused(path + " is namespace " + id.inode() + " now, not " + claimedInode
                    + " as claimed", false, true);
        }
        return id;
    }
}
