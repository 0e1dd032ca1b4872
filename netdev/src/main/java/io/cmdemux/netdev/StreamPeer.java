package io.cmdemux.netdev;

/** What the kernel knows of the far end of a connected stream socket, asked without reading from it. */
public final class StreamPeer {
    private StreamPeer() {}

    /**
     * Whether the peer has closed or shut down its end of {@code fd}, as the kernel has it now: before an event loop
     * that owns the socket has read the end of stream.
     */
    public static boolean hasHungUp(int fd) throws NativeException {
        return Native.peerHungUp(fd);
    }
}
