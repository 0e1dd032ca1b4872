package io.cmdemux.pods;

import io.cmdemux.namespaces.NetnsId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's registrations: in memory for the queries and views, and in a {@link PodStore} so
 * that a restarted daemon still knows its pods. Every registration's namespace is checked against
 * the kernel before it is kept, and registrations whose namespace is gone are dropped.
 */
public final class PodRegistry {
    private static final Logger log = LoggerFactory.getLogger(PodRegistry.class);

    private final PodStore store;
    private final NetnsId host;
    private final Map<PodKey, PodRegistration> live = new ConcurrentHashMap<>();

    public PodRegistry(PodStore store, NetnsId host) {
        this.store = store;
        this.host = host;
    }

    public PodStore store() {
        return store;
    }

    /**
     * Loads the store: what this daemon wrote before a restart, and what the CNI fallback wrote
     * while it was down. Files whose namespace is gone, or is no longer the one recorded, are deleted.
     */
    public void load() {
        PodStore.Loaded l = store.readAll();
        for (String p : l.problems()) {
            log.warn("pod state: {}", p);
        }
        for (PodRegistration r : l.registrations()) {
            try {
                NetnsClaims.check(r.netnsPath(), r.netnsInode(), host);
                live.put(r.key(), r);
            } catch (NetnsClaims.Refused e) {
                log.info("forgetting pod {} ({}): {}", r.key(), r.pod().display(), e.getMessage());
                deleteQuietly(r.key());
            }
        }
        log.info("{} pod registration(s) loaded from {}", live.size(), store.dir());
    }

    /**
     * Keeps a registration whose namespace the caller has checked (with {@link NetnsClaims}),
     * replacing an older one of the same key; written through to the store.
     */
    public void put(PodRegistration r) throws IOException {
        store.write(r);
        live.put(r.key(), r);
    }

    /** @return whether it was known */
    public boolean remove(PodKey key) throws IOException {
        // the file first: when it cannot go, the registration stays in both places and DEL fails,
        // rather than coming back from the file at the next start
        boolean hadFile = store.delete(key);
        return live.remove(key) != null || hadFile;
    }

    /** CNI GC: drops this network's registrations that are not among {@code valid}. */
    public List<PodKey> retainOnly(String network, Set<PodKey> valid) throws IOException {
        List<PodKey> gone = new ArrayList<>();
        for (PodKey k : new ArrayList<>(live.keySet())) {
            if (k.network().equals(network) && !valid.contains(k)) {
                remove(k);
                gone.add(k);
            }
        }
        return gone;
    }

    /** Drops registrations whose namespace file is gone or names another namespace now (a DEL that never came). */
    public List<PodKey> prune() {
        List<PodKey> gone = new ArrayList<>();
        for (PodRegistration r : new ArrayList<>(live.values())) {
            try {
                NetnsClaims.check(r.netnsPath(), r.netnsInode(), host);
            } catch (NetnsClaims.Refused e) {
                if (e.gone() || e.replaced()) {
                    live.remove(r.key(), r);
                    deleteQuietly(r.key());
                    gone.add(r.key());
                    log.info("pod {} ({}) is gone: {}", r.key(), r.pod().display(), e.getMessage());
                }
            }
        }
        return gone;
    }

    public PodRegistration get(PodKey key) {
        return live.get(key);
    }

    public PodDirectory directory() {
        return new PodDirectory(new ArrayList<>(live.values()));
    }

    private void deleteQuietly(PodKey key) {
        try {
            store.delete(key);
        } catch (IOException e) {
            log.warn("cannot delete the state file of {}: {}", key, e.getMessage());
        }
    }
}
