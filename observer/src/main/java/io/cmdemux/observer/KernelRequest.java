package io.cmdemux.observer;

import io.cmdemux.observer.trace.ReqProbeEvent;

/**
 * One request the kernel received and what it did with it.
 *
 * @param timestampNanos the trace clock's time of the first event of the request
 * @param localCommId the requester's comm ID (the REQ's Local Communication ID), as cmdemux prints it
 * @param device the RDMA device it arrived on, or null when no event named it
 * @param port the port, 0 when no event named it
 * @param probe the request's fields from the cmdemux/req kprobe, or null (no kprobe, or ib_cm found no listener)
 */
public record KernelRequest(long timestampNanos, long localCommId, boolean sidr, String device, int port,
        ReqProbeEvent probe, KernelOutcome outcome) {
    public String localCommIdText() {
        return String.format("0x%08x", localCommId);
    }
}
