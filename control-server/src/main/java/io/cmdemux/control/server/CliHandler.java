package io.cmdemux.control.server;

import io.cmdemux.control.protocol.ConsumerInfo;
import io.cmdemux.control.protocol.ProgramReply;
import io.cmdemux.control.protocol.RequestRefused;
import java.util.List;

/**
 * The daemon's side of CLI: a one-shot `cmdemux VERB ...` run here, on the daemon's live state, for a client
 * that would otherwise read every namespace itself. Called only for root on the host socket in the host
 * namespace, on a worker thread.
 */
public interface CliHandler {
    /**
     * @return what the verb printed and its exit status, exactly as the one-shot run would have
     * @throws RequestRefused EOPNOTSUPP for a verb or an argument that this daemon leaves to the one-shot run
     *     (which the client then makes)
     */
    ProgramReply run(List<String> args, ConsumerInfo caller) throws RequestRefused;
}
