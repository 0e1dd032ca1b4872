package io.cmdemux.dataplane.consumer;

import io.cmdemux.ingress.resolve.ListenerTable;
import java.util.List;

/** Nobody to deliver to: handlers are taken and ignored. Tests extend it with the part they need. */
public class NoConsumers implements Consumers {
    @Override
    public ListenerTable listeners() {
        return new ListenerTable(1, List.of());
    }

    @Override
    public Handover deliver(Delivery delivery) {
        return Handover.GONE;
    }

    @Override
    public void onReject(RejectHandler handler) {}

    @Override
    public void onAccept(AcceptHandler handler) {}

    @Override
    public void onDisconnect(DisconnectHandler handler) {}

    @Override
    public void onConsumerGone(java.util.function.Consumer<String> handler) {}

    @Override
    public boolean notify(String owner, CmEvent event) {
        return false;
    }

    @Override
    public void close() {}
}
