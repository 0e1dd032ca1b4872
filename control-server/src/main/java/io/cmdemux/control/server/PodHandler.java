package io.cmdemux.control.server;

import io.cmdemux.control.protocol.CniCall;
import io.cmdemux.control.protocol.ProgramReply;
import io.cmdemux.control.protocol.ConsumerInfo;
import io.cmdemux.control.protocol.RequestRefused;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The daemon's side of POD_REGISTER, POD_UNREGISTER and CNI. The control server calls it only for
 * root on the host socket, in the host namespace, and on a worker thread of its own: a CNI ADD
 * may wait a while for GIDs to appear.
 */
public interface PodHandler {
    /** Runs the CNI plugin; plugin errors are part of the reply (exit code and error JSON), not exceptions. */
    ProgramReply cni(CniCall call, ConsumerInfo caller);

    /**
     * @param registration the registration as PodJson writes it; the namespace it names must be
     *     checked against the kernel, never believed
     * @return the registration as kept
     * @throws RequestRefused EINVAL for a malformed or false claim, ENOENT when the namespace is gone
     */
    JsonNode register(ObjectNode registration, ConsumerInfo caller) throws RequestRefused;

    /** @param key {network, containerId, ifname}; unknown keys are not an error (DEL is idempotent) */
    JsonNode unregister(ObjectNode key, ConsumerInfo caller) throws RequestRefused;
}
