package io.cmdemux.cni;

import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsId;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The JVM CLI with the daemon down: a one-shot read of the host, registrations over the socket
 * or into the state directory.
 */
final class FallbackBackend implements CniBackend {
    private final NetnsId host;

    FallbackBackend() throws IOException {
        this.host = NetnsDiscovery.idOf(Path.of("/proc/self/ns/net"));
    }

    @Override
    public NetnsId host() {
        return host;
    }

    @Override
    public RdmaState state(RdmaSettings rdma, String podNetns) {
        return new OneShotRdmaState(rdma.softPorts(), podNetns);
    }

    @Override
    public PodRegistrar registrar(Path controlSocket) {
        return new ClientRegistrar(controlSocket);
    }

    @Override
    public String name() {
        return "answered by the JVM fallback (cmdemux cni), the daemon being unreachable";
    }
}
