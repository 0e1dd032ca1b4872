package io.cmdemux.pathrecord.sa;

import io.cmdemux.pathrecord.PathQuery;
import io.cmdemux.pathrecord.PathRecord;
import io.cmdemux.pathrecord.source.PathSource;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/** The SA as a path source: one {@link SaClient} per local port, opened on first use. */
public final class SaPathSource implements PathSource {
    private record PortKey(String device, int port) {}

    private final SaClient.Settings settings;
    private final Map<PortKey, SaClient> clients = new ConcurrentHashMap<>();

    public SaPathSource(SaClient.Settings settings) {
        this.settings = settings;
    }

    @Override
    public String name() {
        return "sa";
    }

    @Override
    public CompletableFuture<PathRecord> resolve(PathQuery q) {
        SaClient c;
        try {
            c = client(q.device(), q.port());
        } catch (SaException e) {
            return CompletableFuture.failedFuture(e);
        }
        return c.query(q);
    }

    /** The client of a port, opened now if need be. A failed open is retried on the next query. */
    public SaClient client(String device, int port) throws SaException {
        PortKey k = new PortKey(device, port);
        SaClient c = clients.get(k);
        if (c != null) {
            return c;
        }
        synchronized (this) {
            c = clients.get(k);
            if (c == null) {
                c = SaClient.open(device, port, settings);
                clients.put(k, c);
            }
            return c;
        }
    }

    public Map<String, SaClient> clients() {
        Map<String, SaClient> out = new java.util.TreeMap<>();
        clients.forEach((k, v) -> out.put(k.device() + "/" + k.port(), v));
        return out;
    }

    @Override
    public void close() {
        clients.values().forEach(SaClient::close);
        clients.clear();
    }
}
