package io.cmdemux.control.server;

import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.QueryArgs;
import io.cmdemux.control.protocol.QueryKind;
import io.cmdemux.control.protocol.Record;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.Wire;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.netdev.InetAddresses;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs QUERY on worker threads, never on an event loop: LISTENERS from the registry, the rest by
 * the daemon's {@link QueryHandler}. Topology, explain and gids describe every namespace, so only
 * the host namespace may ask unless pods are allowed to.
 */
final class QueryRunner {
    private static final Logger log = LoggerFactory.getLogger(QueryRunner.class);
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private final QueryHandler handler;
    private final boolean fromPods;
    private final ListenerRegistry registry;
    private final NamespaceNames names;
    private final Executor workers;
    private final ControlCounters counters;

    QueryRunner(QueryHandler handler, boolean fromPods, ListenerRegistry registry, NamespaceNames names,
            Executor workers, ControlCounters counters) {
        this.handler = handler;
        this.fromPods = fromPods;
        this.registry = registry;
        this.names = names;
        this.workers = workers;
        this.counters = counters;
    }

    /** Checks the caller may ask, then answers later on a worker; refusals that need no work are thrown at once. */
    void run(Connection c, QueryKind kind, ObjectNode args, Frame request) throws RequestRefused {
        if (kind != QueryKind.LISTENERS && !c.netns().equals(names.host()) && !fromPods) {
            throw new RequestRefused(Wire.EPERM, kind.name().toLowerCase()
                    + " is answered only in the host namespace: it describes other namespaces");
        }
        if (kind != QueryKind.LISTENERS && handler == null) {
            throw new RequestRefused(Wire.EOPNOTSUPP, "this daemon answers no " + kind.name().toLowerCase()
                    + " queries");
        }
        if (!c.queryRunning.compareAndSet(false, true)) {
            throw new RequestRefused(Wire.EAGAIN, "one query at a time per connection");
        }
        try {
            workers.execute(() -> answer(c, kind, args, request));
        } catch (RejectedExecutionException e) {
            c.queryRunning.set(false);
            throw new RequestRefused(Wire.EAGAIN, "the daemon is busy; try again");
        }
    }

    private void answer(Connection c, QueryKind kind, ObjectNode args, Frame request) {
        try {
            JsonNode answer = kind == QueryKind.LISTENERS ? listeners(c)
                    : handler.answer(kind, args, c.info(names.of(c.netns())));
            byte[] json = QueryArgs.JSON.writeValueAsBytes(answer);
            if (json.length > Wire.MAX_REPLY_FRAME - 64) {
                throw new RequestRefused(Wire.EMSGSIZE, "the answer is " + json.length
                        + " bytes, more than a frame carries");
            }
            counters.inc("query." + kind.name().toLowerCase());
            c.channel.writeAndFlush(Frame.reply(request, Wire.OK, List.of(Record.mandatory(Wire.R_JSON, json))));
        } catch (RequestRefused e) {
            refuse(c, request, e.status(), e.getMessage());
        } catch (JsonProcessingException | RuntimeException e) {
            log.warn("{}: {} query failed: {}", c, kind, e.toString());
            refuse(c, request, Wire.EIO, "the query failed: " + e.getMessage());
        } finally {
            c.queryRunning.set(false);
        }
    }

    private void refuse(Connection c, Frame request, int status, String text) {
        counters.inc("refused." + Wire.errnoName(status));
        c.channel.writeAndFlush(Frame.reply(request, status, List.of(Record.text(Wire.R_TEXT, text))));
    }

    /** All listeners for the host namespace; a pod sees only its own namespace's. */
    private JsonNode listeners(Connection c) {
        ArrayNode out = F.arrayNode();
        boolean all = c.netns().equals(names.host());
        String mine = ListenerRegistry.owner(c.id);
        for (Listener l : registry.table().all()) {
            if (!all && !l.netns().equals(c.netns())) {
                continue;
            }
            ObjectNode o = out.addObject();
            o.put("listenerId", l.bindOrder());
            ObjectNode ns = o.putObject("namespace");
            ns.put("inode", l.netns().inode());
            ns.put("name", names.of(l.netns()));
            o.put("ps", l.portSpace().cliName());
            o.put("address", l.address() == null ? "ib" : InetAddresses.toText(l.address()));
            o.put("port", l.port());
            o.put("afonly", l.afonly());
            o.put("boundIfindex", l.boundIfindex());
            o.put("owner", l.owner());
            o.put("mine", mine.equals(l.owner()));
        }
        return out;
    }
}
