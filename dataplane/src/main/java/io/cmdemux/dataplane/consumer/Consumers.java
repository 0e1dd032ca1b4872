package io.cmdemux.dataplane.consumer;

import io.cmdemux.ingress.resolve.Decision;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.ingress.resolve.ListenerTable;
import io.cmdemux.ingress.resolve.PacketMeta;

/**
 * The daemon's side of the control API, as the pipeline sees it: the listeners consumers have
 * registered (each placed in the namespace the kernel proves for its connection), delivery of a
 * request to the consumer that owns a listener, and the consumers' answers.
 */
public interface Consumers extends AutoCloseable {

    /** The listeners now registered; a new generation on every change. */
    ListenerTable listeners();

    /** What became of a request handed to {@link #deliver}. */
    enum Handover {
        /** Queued for its consumer. */
        TAKEN,
        /** Its listener or consumer is gone (the listeners are being removed), or is in another namespace. */
        GONE,
        /**
         * Its consumer is not reading: what is queued for it is over the limit. ucma's listener backlog
         * is full then, and the kernel drops the request silently so that the peer retries.
         */
        BACKLOG
    }

    /** Hands a request to the consumer that registered {@code delivery.listener()}. */
    Handover deliver(Delivery delivery);

    /**
     * From now until {@link #releaseDeliveries()}, what this thread delivers is kept for its
     * consumers but not yet handed over: a batch of frames is answered on the wire (its MRAs) before
     * any consumer can answer one of its requests, and each consumer gets the batch's requests to it
     * in one write. Other threads' deliveries and CM events go their own way meanwhile; none of them
     * can be about a request of the batch, which no consumer has seen yet.
     */
    default void holdDeliveries() {}

    /** Hands over what this thread delivered since {@link #holdDeliveries()}. */
    default void releaseDeliveries() {}

    /** Called when a consumer answers a delivered request with REJECT. */
    void onReject(RejectHandler handler);

    /** Called when a consumer answers a delivered request with ACCEPT; the handler sends the REP. */
    void onAccept(AcceptHandler handler);

    /** Called when a consumer asks to disconnect one of its connections. */
    void onDisconnect(DisconnectHandler handler);

    /** Called with the owner (Listener.owner) of a consumer that went away, after its listeners are gone. */
    void onConsumerGone(java.util.function.Consumer<String> handler);

    /** Tells the consumer {@code owner} about one of its connections; false when it is gone. */
    boolean notify(String owner, CmEvent event);

    @FunctionalInterface
    interface AcceptHandler {
        /**
         * @param owner the consumer that accepts (the one the request was delivered to)
         * @return the daemon's local comm ID for the connection
         * @throws Refusal when the request can no longer be accepted
         */
        int accept(String owner, Acceptance acceptance) throws Refusal;

        /**
         * The ACCEPTs of one read from a consumer have all been handed to {@link #accept}: the REPs it
         * made on this thread since the last call may wait for this, to leave together. Called after
         * every read that had an ACCEPT.
         */
        default void acceptsRead() {}
    }

    @FunctionalInterface
    interface DisconnectHandler {
        /** @throws Refusal NOT_YOURS when the connection is not the owner's */
        void disconnect(String owner, int localCommId, byte[] privateData) throws Refusal;
    }

    /**
     * One request on its way to a consumer.
     *
     * @param traceId the daemon's id for this decision; a consumer's REJECT names it
     * @param frame the RoCEv2 frame as it arrived (VLAN tag included)
     */
    record Delivery(long traceId, Listener listener, byte[] frame, PacketMeta meta, Decision decision) {}

    @FunctionalInterface
    interface RejectHandler {
        /** @param ari additional rejection information, may be empty; @param privateData may be empty */
        void reject(long traceId, int reason, byte[] ari, byte[] privateData);

        /**
         * The REJECTs of one read from a consumer have all been handed to {@link #reject}: the REJs it made on this
         * thread since the last call may wait for this, to leave together. Called after every read that had one.
         */
        default void rejectsRead() {}
    }

    @Override
    void close();
}
