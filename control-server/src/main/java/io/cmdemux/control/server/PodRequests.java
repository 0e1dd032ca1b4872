package io.cmdemux.control.server;

import io.cmdemux.control.protocol.CliMessages;
import io.cmdemux.control.protocol.CniCall;
import io.cmdemux.control.protocol.CniMessages;
import io.cmdemux.control.protocol.ConsumerInfo;
import io.cmdemux.control.protocol.Frame;
import io.cmdemux.control.protocol.FrameCodec;
import io.cmdemux.control.protocol.Messages;
import io.cmdemux.control.protocol.ProtocolException;
import io.cmdemux.control.protocol.QueryArgs;
import io.cmdemux.control.protocol.Record;
import io.cmdemux.control.protocol.RequestRefused;
import io.cmdemux.control.protocol.Via;
import io.cmdemux.control.protocol.Wire;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POD_REGISTER, POD_UNREGISTER, CNI and CLI: only root, only on the host socket, only from the host
 * namespace (the CNI plugin runs there, as a runtime runs it, and so do the one-shot CLI verbs, which need
 * root there themselves), and on a pool of their own, since an ADD waits up to its configured bound for
 * GIDs and must not hold up queries or accepts.
 */
final class PodRequests {
    private static final Logger log = LoggerFactory.getLogger(PodRequests.class);

    private final PodHandler handler;
    private final NamespaceNames names;
    private final ExecutorService workers;
    private final ControlCounters counters;

    private final java.util.function.Supplier<CliHandler> cli;

    PodRequests(PodHandler handler, java.util.function.Supplier<CliHandler> cli, NamespaceNames names,
            ExecutorService workers, ControlCounters counters) {
        this.handler = handler;
        this.cli = cli;
        this.names = names;
        this.workers = workers;
        this.counters = counters;
    }

    /** Checks who asks and what, then answers later on a worker; refusals that need no work are thrown at once. */
    void run(Connection c, Frame f) throws ProtocolException, RequestRefused {
        String what = Wire.typeName(f.type());
        CliHandler verbs = f.type() == Wire.CLI ? cli.get() : null;
        if (f.type() == Wire.CLI ? verbs == null : handler == null) {
            throw new RequestRefused(Wire.EOPNOTSUPP, f.type() == Wire.CLI ? "this daemon answers no CLI verbs"
                    : "this daemon keeps no pod registrations (no pod handler is installed)");
        }
        if (c.via != Via.HOST_SOCKET || !c.netns().equals(names.host())) {
            throw new RequestRefused(Wire.EPERM, what + " is accepted only on the host socket from the host namespace,"
                    + " where CNI plugins run");
        }
        if (c.uid() != 0) {
            throw new RequestRefused(Wire.EPERM, what + " is for root (the CNI plugin and the one-shot verbs run as"
                    + " root); uid " + c.uid() + " may not");
        }
        Task task;
        if (f.type() == Wire.CLI) {
            List<String> args = CliMessages.cliArgs(f);
            task = () -> CliMessages.cliReply(verbs.run(args, info(c)));
        } else if (f.type() == Wire.CNI) {
            CniCall call = CniMessages.cniCall(f);
            task = () -> CniMessages.cniReply(handler.cni(call, info(c)));
        } else {
            Messages.requireKnown(f, java.util.Set.of(Wire.R_JSON));
            ObjectNode doc = QueryArgs.parse(Messages.required(f, Wire.R_JSON, "JSON").value());
            boolean register = f.type() == Wire.POD_REGISTER;
            task = () -> json(register ? handler.register(doc, info(c)) : handler.unregister(doc, info(c)));
        }
        try {
            workers.execute(() -> answer(c, f, task));
        } catch (RejectedExecutionException e) {
            throw new RequestRefused(Wire.EAGAIN, "the daemon is busy with other pods; try again");
        }
    }

    private interface Task {
        List<Record> call() throws RequestRefused, JsonProcessingException;
    }

    private void answer(Connection c, Frame request, Task task) {
        String what = Wire.typeName(request.type()).toLowerCase();
        try {
            Frame reply = Frame.reply(request, Wire.OK, task.call());
            int length = FrameCodec.encodedLength(reply);
            if (length > Wire.MAX_REPLY_FRAME) { // the encoder would drop it, and the client wait for nothing
                throw new RequestRefused(Wire.EMSGSIZE, "the answer is " + length + " bytes, over the limit of "
                        + Wire.MAX_REPLY_FRAME);
            }
            counters.inc("pods." + what);
            c.channel.writeAndFlush(reply);
        } catch (RequestRefused e) {
            refuse(c, request, e.status(), e.getMessage());
        } catch (JsonProcessingException | RuntimeException e) {
            log.warn("{}: {} failed: {}", c, what, e.toString());
            refuse(c, request, Wire.EIO, what + " failed: " + e.getMessage());
        }
    }

    private void refuse(Connection c, Frame request, int status, String text) {
        counters.inc("refused." + Wire.errnoName(status));
        c.channel.writeAndFlush(Frame.reply(request, status, List.of(Record.text(Wire.R_TEXT, text))));
    }

    private ConsumerInfo info(Connection c) {
        return c.info(names.of(c.netns()));
    }

    private static List<Record> json(JsonNode n) throws JsonProcessingException {
        return List.of(Record.mandatory(Wire.R_JSON, QueryArgs.JSON.writeValueAsBytes(n)));
    }
}
