package io.cmdemux.cni;

import com.fasterxml.jackson.databind.JsonNode;
import io.cmdemux.control.client.BlockingControlClient;
import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.Messages;
import io.cmdemux.control.protocol.QueryKind;
import io.cmdemux.control.protocol.Record;
import io.cmdemux.control.protocol.Wire;
import io.cmdemux.pods.PodJson;
import io.cmdemux.pods.PodKey;
import io.cmdemux.pods.PodRegistration;
import io.cmdemux.pods.PodStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The JVM fallback's registrar: POD_REGISTER over the host socket when the daemon answers (it may
 * have come back since the thin client tried), otherwise the state directory beside the socket,
 * which the daemon checks and loads when it starts.
 */
final class ClientRegistrar implements PodRegistrar {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final Duration CONNECT_TIMEOUT = Duration.ofMillis(500);

    private final Path socket;
    private final PodStore store;

    ClientRegistrar(Path socket) {
        this.socket = socket;
        this.store = PodStore.besideSocket(socket);
    }

    @Override
    public String register(PodRegistration r) throws CniError {
        BlockingControlClient c = connectOrNull();
        if (c == null) {
            try {
                store.write(r);
            } catch (IOException e) {
                throw new CniError(CniError.IO_FAILURE, "the daemon is down and " + store.dir() + " cannot be written: "
                        + e.getMessage(), "");
            }
            return "the daemon is down: recorded in " + store.dir() + " for it to check and load when it starts";
        }
        try (c) {
            Frame f = c.call(Wire.POD_REGISTER, List.of(json(PodJson.json(r))));
            if (f.status() != Wire.OK) {
                throw new CniError(CniError.REGISTRATION_REFUSED,
                        "the daemon refused the registration: " + Wire.errnoName(f.status()) + ": " + f.text(),
                        "see the daemon's log");
            }
            return "registered with the daemon";
        } catch (IOException e) {
            throw new CniError(CniError.TRY_AGAIN_LATER, "registering with the daemon at " + socket + " failed: "
                    + e.getMessage(), "");
        }
    }

    @Override
    public void unregister(PodKey key) throws IOException {
        store.delete(key); // a registration recorded while the daemon was down
        BlockingControlClient c = connectOrNull();
        if (c == null) {
            return;
        }
        try (c) {
            Frame f = c.call(Wire.POD_UNREGISTER, List.of(json(PodJson.keyJson(key))));
            if (f.status() != Wire.OK) {
                throw new IOException(Wire.errnoName(f.status()) + ": " + f.text());
            }
        }
    }

    @Override
    public List<PodKey> retainOnly(String network, Set<PodKey> valid) throws IOException {
        List<PodKey> gone = new ArrayList<>();
        for (PodRegistration r : store.readAll().registrations()) {
            if (r.key().network().equals(network) && !valid.contains(r.key())) {
                store.delete(r.key());
                gone.add(r.key());
            }
        }
        BlockingControlClient c = connectOrNull();
        if (c == null) {
            return gone;
        }
        try (c) {
            Frame f = c.call(Wire.QUERY, List.of(Messages.query(QueryKind.PODS)));
            if (f.status() != Wire.OK) {
                throw new IOException("QUERY pods: " + Wire.errnoName(f.status()) + ": " + f.text());
            }
            JsonNode pods = CniConfig.JSON.readTree(f.first(Wire.R_JSON).orElseThrow().value());
            for (JsonNode p : pods) {
                PodKey k = PodJson.key(p);
                if (k.network().equals(network) && !valid.contains(k)) {
                    c.call(Wire.POD_UNREGISTER, List.of(json(PodJson.keyJson(k))));
                    gone.add(k);
                }
            }
        }
        return gone;
    }

    @Override
    public String unavailable() {
        BlockingControlClient c = connectOrNull();
        if (c == null) {
            return "the daemon does not answer on " + socket;
        }
        c.close();
        return null;
    }

    private BlockingControlClient connectOrNull() {
        try {
            return BlockingControlClient.connect(socket, CONNECT_TIMEOUT, TIMEOUT);
        } catch (IOException e) {
            return null;
        }
    }

    private static Record json(JsonNode n) throws IOException {
        return Record.mandatory(Wire.R_JSON, CniConfig.JSON.writeValueAsBytes(n));
    }
}
