package io.cmdemux.control.protocol;

import io.netty.channel.Channel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import java.util.EnumSet;
import java.util.Set;

/**
 * Whether a channel's socket is read, decided in one place. Several parties may want a peer left unread, each for a
 * reason of its own, and each lifts only its own: were each to set the channel's auto-read itself, one that is done
 * would turn reads back on while another still needs them off. The channel is read while no reason is held.
 * Event loop only.
 */
public final class ReadGate {
    /** Why a peer is not read. */
    public enum Reason {
        /** A host-socket peer not yet placed in its namespace. */
        UNIDENTIFIED,
        /** A peer that does not read its replies: back-pressure. */
        UNWRITABLE,
        /** A peer whose frames of this turn are spent ({@link FrameDecoder}'s budget). */
        OVER_BUDGET
    }

    private static final AttributeKey<ReadGate> KEY = AttributeKey.valueOf(ReadGate.class, "gate");

    private final Channel channel;
    private final Set<Reason> held = EnumSet.noneOf(Reason.class);

    private ReadGate(Channel channel) {
        this.channel = channel;
    }

    /** The channel's gate; made on first use, with no reason held. */
    public static ReadGate of(Channel channel) {
        Attribute<ReadGate> a = channel.attr(KEY);
        ReadGate g = a.get();
        if (g == null) {
            g = new ReadGate(channel);
            a.set(g);
        }
        return g;
    }

    public void hold(Reason r) {
        if (held.add(r)) {
            apply();
        }
    }

    public void release(Reason r) {
        if (held.remove(r)) {
            apply();
        }
    }

    public boolean holds(Reason r) {
        return held.contains(r);
    }

    /** A connection on its way out: whatever still comes is read, to be discarded, until it closes. */
    public void open() {
        held.clear();
        apply();
    }

    private void apply() {
        channel.config().setAutoRead(held.isEmpty());
    }
}
