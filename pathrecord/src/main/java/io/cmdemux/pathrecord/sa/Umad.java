package io.cmdemux.pathrecord.sa;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.annotations.In;
import jnr.ffi.byref.IntByReference;

/**
 * The only door to libibumad (rdma-core, package libibumad3). Loaded once, on first use; when the
 * library is missing, {@link #unavailability()} says why and every call fails with that message.
 * libibumad returns negative errno values instead of setting errno, so no @SaveError here; the
 * failures leave as {@link SaException}s that name the call and that value.
 */
final class Umad {
    /** jnr generates an implementation in its own class loader, so the interface itself must be public. */
    public interface LibIbumad {
        int umad_init();
        int umad_open_port(String caName, int portnum);
        int umad_close_port(int portid);
        int umad_get_port(String caName, int portnum, Pointer port);
        int umad_release_port(Pointer port);
        int umad_register(int portid, int mgmtClass, int mgmtVersion, byte rmppVersion, Pointer methodMask);
        int umad_unregister(int portid, int agentid);
        int umad_send(int portid, int agentid, @In Pointer umad, int length, int timeoutMs, int retries);
        int umad_recv(int portid, Pointer umad, IntByReference length, int timeoutMs);
        Pointer umad_get_mad(Pointer umad);
        long umad_size();
        int umad_status(Pointer umad);
        int umad_set_addr(Pointer umad, int dlid, int dqp, int sl, int qkey);
        int umad_set_pkey(Pointer umad, int pkeyIndex);
    }

    // infiniband/umad.h struct umad_port on LP64: ca_name[20], portnum, base_lid, lmc, sm_lid, sm_sl,
    // state, phys_state, rate, capmask, gid_prefix (BE), port_guid (BE), pkeys_size, pkeys*, link_layer[20]
    private static final int PORT_SIZE = 112;
    private static final int PORT_BASE_LID = 24;
    private static final int PORT_LMC = 28;
    private static final int PORT_SM_LID = 32;
    private static final int PORT_SM_SL = 36;
    private static final int PORT_STATE = 40;
    private static final int PORT_GID_PREFIX = 56;
    private static final int PORT_GUID = 64;
    private static final int PORT_PKEYS_SIZE = 72;
    private static final int PORT_PKEYS = 80;
    private static final int PORT_LINK_LAYER = 88;

    private static final Object LOCK = new Object();
    private static LibIbumad lib;
    private static Runtime runtime;
    private static String unavailable;
    private static boolean initialised;

    private Umad() {}

    /** Null when libibumad loads and umad_init succeeds; otherwise why not, with the package to install. */
    static String unavailability() {
        load();
        return unavailable;
    }

    private static LibIbumad lib() throws SaException {
        load();
        if (unavailable != null) {
            throw new SaException(unavailable);
        }
        return lib;
    }

    private static Pointer allocate(int size) {
        return Memory.allocateDirect(runtime, size, true);
    }

    private static void load() {
        synchronized (LOCK) {
            if (initialised) {
                return;
            }
            initialised = true;
            List<String> tried = new ArrayList<>();
            for (String name : List.of("ibumad", "libibumad.so.3")) {
                try {
                    lib = LibraryLoader.create(LibIbumad.class).load(name);
                    break;
                } catch (UnsatisfiedLinkError e) {
                    tried.add(name + ": " + e.getMessage());
                }
            }
            if (lib == null) {
                unavailable = "libibumad cannot be loaded (" + String.join("; ", tried)
                        + "): install the Debian package libibumad3";
                return;
            }
            runtime = Runtime.getRuntime(lib);
            int rc = lib.umad_init();
            if (rc < 0) {
                unavailable = "umad_init: " + rc + " (is the ib_umad kernel module loaded?)";
                lib = null;
            }
        }
    }

    /** What umad_get_port says of a local port. */
    static PortInfo port(String ca, int portNum) throws SaException {
        LibIbumad l = lib();
        Pointer p = allocate(PORT_SIZE);
        int rc = l.umad_get_port(ca, portNum, p);
        if (rc < 0) {
            throw new SaException("umad_get_port(" + ca + ", " + portNum + "): " + rc + ": no such IB port");
        }
        PortInfo info = portInfo(ca, portNum, p);
        l.umad_release_port(p);
        return info;
    }

    /** Reads the fields of a struct umad_port filled by umad_get_port. */
    private static PortInfo portInfo(String ca, int portNum, Pointer p) {
        long prefix = Long.reverseBytes(p.getLong(PORT_GID_PREFIX));
        long guid = Long.reverseBytes(p.getLong(PORT_GUID));
        int n = p.getInt(PORT_PKEYS_SIZE);
        List<Integer> pkeys = new ArrayList<>();
        Pointer table = p.getPointer(PORT_PKEYS);
        for (int i = 0; table != null && i < n && i < 4096; i++) {
            pkeys.add(Short.toUnsignedInt(table.getShort(2L * i)));
        }
        byte[] ll = new byte[20];
        p.get(PORT_LINK_LAYER, ll, 0, ll.length);
        int len = 0;
        while (len < ll.length && ll[len] != 0) {
            len++;
        }
        return new PortInfo(ca, portNum, p.getInt(PORT_BASE_LID), p.getInt(PORT_LMC), p.getInt(PORT_SM_LID),
                p.getInt(PORT_SM_SL), p.getInt(PORT_STATE), prefix, guid, pkeys,
                new String(ll, 0, len, StandardCharsets.US_ASCII));
    }

    /**
     * An open umad port with one registered agent: the handles umad_open_port and umad_register gave,
     * which nothing outside this class sees.
     */
    static final class Agent {
        private final LibIbumad lib;
        private final int portId;
        private final int agentId;
        private final int umadSize;

        private Agent(LibIbumad lib, int portId, int agentId) {
            this.lib = lib;
            this.portId = portId;
            this.agentId = agentId;
            // umad_size() is 56 before umad_open_port and 64 after: ask once the port is open.
            this.umadSize = (int) lib.umad_size();
        }

        /**
         * Opens {@code ca}'s port {@code portNum} and registers an agent of management class
         * {@code mgmtClass}, version {@code version}; {@code what} names the class in the error.
         */
        static Agent open(String ca, int portNum, int mgmtClass, int version, String what) throws SaException {
            LibIbumad l = lib();
            int portId = l.umad_open_port(ca, portNum);
            if (portId < 0) {
                throw new SaException("umad_open_port(" + ca + ", " + portNum + "): " + portId);
            }
            int agent = l.umad_register(portId, mgmtClass, version, (byte) 0, null);
            if (agent < 0) {
                l.umad_close_port(portId);
                throw new SaException("umad_register(" + what + ") on " + ca + "/" + portNum + ": " + agent);
            }
            Agent a = new Agent(l, portId, agent);
            a.bindCalls();
            return a;
        }

        int agentId() {
            return agentId;
        }

        /**
         * Binds the native calls of the answer path before any query's clock runs: jnr generates each
         * stub on its first call, which on a busy host can take longer than an SA's answer.
         */
        private void bindCalls() {
            Buffer scratch = buffer();
            receive(scratch, 1);
            scratch.status();
            lib.umad_get_mad(scratch.umad);
            scratch.address(0, 1, 0, 0, 0);
        }

        /** A struct ib_user_mad with room for one MAD, for one thread's sends or receives. */
        Buffer buffer() {
            return new Buffer(lib, umadSize);
        }

        /**
         * umad_send of the MAD in {@code b}; the MAD layer waits {@code timeoutMs} for each of
         * 1 + {@code retries} tries.
         *
         * @return 0, or libibumad's negative errno
         */
        int send(Buffer b, int timeoutMs, int retries) {
            return lib.umad_send(portId, agentId, b.umad, SaMad.MAD_SIZE, timeoutMs, retries);
        }

        /**
         * umad_recv into {@code b}, waiting up to {@code timeoutMs}.
         *
         * @return 0 or more when a MAD (or a send the MAD layer gave back) arrived; libibumad's negative
         *     errno otherwise
         */
        int receive(Buffer b, int timeoutMs) {
            IntByReference len = new IntByReference(SaMad.MAD_SIZE);
            int rc = lib.umad_recv(portId, b.umad, len, timeoutMs);
            b.length = len.getValue();
            return rc;
        }

        void close() {
            lib.umad_unregister(portId, agentId);
            lib.umad_close_port(portId);
        }
    }

    /** An ib_user_mad: the address header libibumad fills, then the MAD, wherever the ABI puts it. */
    static final class Buffer {
        private final LibIbumad lib;
        private final Pointer umad;
        private int length;

        private Buffer(LibIbumad lib, int umadSize) {
            this.lib = lib;
            this.umad = allocate(umadSize + SaMad.MAD_SIZE);
        }

        /** Where the MAD goes: umad_set_addr and umad_set_pkey. */
        void address(int dlid, int dqp, int sl, int qkey, int pkeyIndex) {
            lib.umad_set_addr(umad, dlid, dqp, sl, qkey);
            lib.umad_set_pkey(umad, pkeyIndex);
        }

        void putMad(byte[] mad) {
            lib.umad_get_mad(umad).put(0, mad, 0, mad.length);
        }

        /** The received MAD's length as umad_recv wrote it. */
        int length() {
            return length;
        }

        /** 0 for a received MAD; an errno (ETIMEDOUT) for a send the MAD layer gave back unanswered. */
        int status() {
            return lib.umad_status(umad);
        }

        /** Copies the first {@code n} bytes of the MAD into {@code mad}. */
        void getMad(byte[] mad, int n) {
            lib.umad_get_mad(umad).get(0, mad, 0, n);
        }
    }
}
