package io.cmdemux.cni;

import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.pods.NetnsClaims;
import java.io.IOException;
import java.nio.file.Path;

/** What the plugin runs against: the daemon's own state and registry, or a one-shot read with the daemon down. */
interface CniBackend {
    /** The host's network namespace; pods are any other. */
    NetnsId host();

    /** The pod namespace at CNI_NETNS: a namespace file, not the host's (checked against the kernel). */
    default NetnsId podNetns(String path) throws NetnsClaims.Refused {
        return NetnsClaims.resolve(path, host());
    }

    /**
     * @param rdma the network's settings; a daemon ignores their softPorts and uses its own ports
     * @param podNetns CNI_NETNS, which a one-shot read includes even where discovery would miss it
     */
    RdmaState state(RdmaSettings rdma, String podNetns) throws IOException;

    PodRegistrar registrar(Path controlSocket);

    /** Says in the log which way the request went ("daemon", "fallback"). */
    String name();
}
