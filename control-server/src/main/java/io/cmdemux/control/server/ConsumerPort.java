package io.cmdemux.control.server;

import io.cmdemux.control.protocol.Acceptance;
import io.cmdemux.control.protocol.CmEventInfo;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.Wire;
import io.cmdemux.dataplane.consumer.CmEvent;
import io.cmdemux.dataplane.consumer.Refusal;

/** Between the protocol's records and the data plane's own values at its consumer port. */
final class ConsumerPort {
    private ConsumerPort() {}

    static io.cmdemux.dataplane.consumer.Acceptance toDataplane(Acceptance a) {
        return new io.cmdemux.dataplane.consumer.Acceptance(a.traceId(), a.qpn(), a.startingPsn(),
                a.responderResources(), a.initiatorDepth(), a.rnrRetryCount(), a.srq(), a.flowControl(),
                a.privateData());
    }

    static CmEventInfo toWire(CmEvent e) {
        int event = switch (e.kind()) {
            case ESTABLISHED -> CmEventInfo.ESTABLISHED;
            case DISCONNECTED -> CmEventInfo.DISCONNECTED;
            case REJECTED -> CmEventInfo.REJECTED;
            case TIMEOUT -> CmEventInfo.TIMEOUT;
            case TIMEWAIT_EXIT -> CmEventInfo.TIMEWAIT_EXIT;
        };
        return new CmEventInfo(e.traceId(), e.localCommId(), event, e.reason());
    }

    /** The errno the consumer reads: ENOENT for a connection that is not its own, EINVAL for one in the wrong state. */
    static RequestRefused toWire(Refusal r) {
        return new RequestRefused(r.kind() == Refusal.Kind.NOT_YOURS ? Wire.ENOENT : Wire.EINVAL, r.getMessage());
    }
}
