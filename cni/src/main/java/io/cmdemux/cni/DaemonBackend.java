package io.cmdemux.cni;

import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.pods.PodRegistry;
import java.nio.file.Path;

/** Inside the daemon: its live state and its own registry, whatever socket the network names. */
final class DaemonBackend implements CniBackend {
    private final NetnsId host;
    private final RdmaState live;
    private final RegistryRegistrar registrar;

    DaemonBackend(NetnsId host, RdmaState live, PodRegistry registry) {
        this.host = host;
        this.live = live;
        this.registrar = new RegistryRegistrar(registry, host);
    }

    @Override
    public NetnsId host() {
        return host;
    }

    @Override
    public RdmaState state(RdmaSettings rdma, String podNetns) {
        return live;
    }

    @Override
    public PodRegistrar registrar(Path controlSocket) {
        return registrar;
    }

    @Override
    public String name() {
        return "answered by the cmdemux daemon";
    }
}
