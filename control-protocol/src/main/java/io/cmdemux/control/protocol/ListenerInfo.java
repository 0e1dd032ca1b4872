package io.cmdemux.control.protocol;

/**
 * A registered listener as LISTEN's reply describes it.
 *
 * @param listenerId the id UNLISTEN names; also the listener's bind order (newer is larger)
 * @param netnsInode the namespace the daemon placed the listener in (proven, never taken from the request)
 * @param spec the effective binding: the port actually bound, afonly as applied
 */
public record ListenerInfo(long listenerId, long netnsInode, ListenSpec spec) {}
