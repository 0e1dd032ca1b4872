package io.cmdemux.dataplane.pipeline;

import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.HostState;
import io.cmdemux.ingress.resolve.PacketMeta;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The last decisions the daemon made, for the status page: a fixed ring written by the tap
 * threads and read by the HTTP side. Writers never wait: each takes the next sequence number
 * and stores into its slot; readers keep only entries whose sequence number is the one the slot
 * should hold, so a slot being rewritten is skipped rather than shown out of place. (With more
 * than {@code capacity} writers in flight at once a slot may briefly hold an older entry; it is
 * then left out, never misnumbered.)
 */
public final class DecisionLog {
    /**
     * One decision: its number here (from 1), the dispatcher's trace ID, when, where, the request, the answer, and the
     * host state it was made on (immutable, and sharing all unchanged namespaces with its neighbours, so a hundred of
     * them cost little), so that its picture shows the host as the resolver saw it.
     */
    public record Entry(long seq, long traceId, long epochMillis, String device, PacketMeta meta, Decision decision,
            HostState state) {}

    private final int capacity;
    private final AtomicReferenceArray<Entry> slots;
    private final AtomicLong last = new AtomicLong();

    public DecisionLog(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive");
        }
        this.capacity = capacity;
        this.slots = new AtomicReferenceArray<>(capacity);
    }

    public int capacity() {
        return capacity;
    }

    /** Safe from any thread; returns the entry's sequence number. */
    public long add(long traceId, long epochMillis, String device, PacketMeta meta, Decision decision,
            HostState state) {
        long seq = last.incrementAndGet();
        slots.set(slot(seq), new Entry(seq, traceId, epochMillis, device, meta, decision, state));
        return seq;
    }

    /** Up to {@code capacity} entries, newest first. */
    public List<Entry> recent() {
        long newest = last.get();
        List<Entry> out = new ArrayList<>(capacity);
        for (long seq = newest; seq > 0 && seq > newest - capacity; seq--) {
            Entry e = slots.get(slot(seq));
            if (e != null && e.seq() == seq) {
                out.add(e);
            }
        }
        return out;
    }

    /** The entry with this number, while it is still among the last {@code capacity}. */
    public Optional<Entry> get(long seq) {
        if (seq < 1) {
            return Optional.empty();
        }
        Entry e = slots.get(slot(seq));
        return e != null && e.seq() == seq ? Optional.of(e) : Optional.empty();
    }

    /** How many decisions were ever added. */
    public long total() {
        return last.get();
    }

    private int slot(long seq) {
        return (int) ((seq - 1) % capacity);
    }
}
