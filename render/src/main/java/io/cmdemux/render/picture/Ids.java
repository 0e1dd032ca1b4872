package io.cmdemux.render.picture;

import io.cmdemux.ingress.resolve.Listener;
import io.cmdemux.namespaces.LinkRef;
import io.cmdemux.namespaces.NetnsId;

/**
 * The node ids of a picture. They become DOT node names and SVG element ids, so they use only
 * ASCII letters, digits and underscores: Graphviz writes them into the SVG unchanged (it escapes
 * '-' as {@code &#45;}), and a test or a script can compute them from what iproute2 prints
 * (namespace inode, ifindex) without reading our output.
 */
public final class Ids {
    private Ids() {}

    public static String namespace(NetnsId ns) {
        return "ns_" + ns.inode();
    }

    /** Graphviz draws a subgraph as a box only when its name starts with "cluster". */
    public static String cluster(NetnsId ns) {
        return "cluster_" + ns.inode();
    }

    public static String link(LinkRef l) {
        return "link_" + l.netns().inode() + "_" + l.ifindex();
    }

    public static String rdmaDevice(String device) {
        return "rdma_" + safe(device);
    }

    public static String rdmaPort(String device, int port) {
        return "port_" + safe(device) + "_" + port;
    }

    public static String listener(Listener l) {
        return "listener_" + l.netns().inode() + "_" + l.bindOrder();
    }

    /**
     * Any string as letters, digits and escapes: every other character (the underscore too)
     * becomes "_" + its code point in hex + "_", so different names never share an id.
     */
    static String safe(String s) {
        StringBuilder sb = new StringBuilder();
        s.codePoints().forEach(cp -> {
            if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9')) {
                sb.appendCodePoint(cp);
            } else {
                sb.append('_').append(Integer.toHexString(cp)).append('_');
            }
        });
        return sb.toString();
    }
}
