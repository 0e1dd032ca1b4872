package io.cmdemux.cni;

import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.pods.NetnsClaims;
import io.cmdemux.pods.PodKey;
import io.cmdemux.pods.PodRegistration;
import io.cmdemux.pods.PodRegistry;
import java.io.IOException;
import java.util.List;
import java.util.Set;

/** In the daemon: registrations go straight into its registry, the namespace checked once more first. */
final class RegistryRegistrar implements PodRegistrar {
    private final PodRegistry registry;
    private final NetnsId host;

    RegistryRegistrar(PodRegistry registry, NetnsId host) {
        this.registry = registry;
        this.host = host;
    }

    @Override
    public String register(PodRegistration r) throws CniError {
        try {
            NetnsClaims.check(r.netnsPath(), r.netnsInode(), host);
            registry.put(r);
        } catch (NetnsClaims.Refused e) {
            throw new CniError(CniError.REGISTRATION_REFUSED, "cannot register " + r.key() + ": " + e.getMessage(),
                    "the pod's namespace changed during the ADD");
        } catch (IOException e) {
            throw new CniError(CniError.IO_FAILURE, "cannot record " + r.key() + " in " + registry.store().dir() + ": "
                    + e.getMessage(), "");
        }
        return "registered with the daemon";
    }

    @Override
    public void unregister(PodKey key) throws IOException {
        registry.remove(key);
    }

    @Override
    public List<PodKey> retainOnly(String network, Set<PodKey> valid) throws IOException {
        return registry.retainOnly(network, valid);
    }

    @Override
    public String unavailable() {
        return null;
    }
}
