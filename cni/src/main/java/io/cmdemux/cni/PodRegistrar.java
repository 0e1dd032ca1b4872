package io.cmdemux.cni;

import io.cmdemux.pods.PodKey;
import io.cmdemux.pods.PodRegistration;
import java.io.IOException;
import java.util.List;
import java.util.Set;

/**
 * Where a ready pod is recorded: the daemon's registry (in the daemon, or over its host socket),
 * or the state directory the daemon reads when it starts.
 */
public interface PodRegistrar {
    /**
     * @return a few words for the log on where the registration went
     * @throws CniError REGISTRATION_REFUSED when the daemon checked the claim and refused it
     */
    String register(PodRegistration r) throws CniError;

    /** DEL: best effort, and nothing to remove is fine. */
    void unregister(PodKey key) throws IOException;

    /** GC: drops the network's registrations that are not among {@code valid}; returns those dropped. */
    List<PodKey> retainOnly(String network, Set<PodKey> valid) throws IOException;

    /** STATUS: null when ADDs can be served, else why not. */
    String unavailable();
}
