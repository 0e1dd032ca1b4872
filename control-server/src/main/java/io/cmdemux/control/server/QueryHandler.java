package io.cmdemux.control.server;

import io.cmdemux.control.protocol.ConsumerInfo;
import io.cmdemux.control.protocol.QueryKind;
import io.cmdemux.control.protocol.RequestRefused;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The daemon's answers to QUERY (topology, explain, gids). Called on a control worker thread,
 * never on an event loop, so it may take its time; one query per connection runs at a time.
 */
@FunctionalInterface
public interface QueryHandler {
    /**
     * @param args the request's JSON object (already parsed with depth and size limits), empty when none was sent
     * @param caller who asked, placed in its namespace by the kernel, not by anything in the request
     * @return the answer, sent back as one JSON record
     * @throws RequestRefused to answer with an errno: EINVAL for bad arguments, ENOENT for nothing found
     */
    JsonNode answer(QueryKind kind, ObjectNode args, ConsumerInfo caller) throws RequestRefused;
}
