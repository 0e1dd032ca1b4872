package io.cmdemux.pathrecord.sa;

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
 * libibumad returns negative errno values instead of setting errno, so no @SaveError here.
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
    static final int PORT_SIZE = 112;
    static final int PORT_BASE_LID = 24;
    static final int PORT_LMC = 28;
    static final int PORT_SM_LID = 32;
    static final int PORT_SM_SL = 36;
    static final int PORT_STATE = 40;
    static final int PORT_GID_PREFIX = 56;
    static final int PORT_GUID = 64;
    static final int PORT_PKEYS_SIZE = 72;
    static final int PORT_PKEYS = 80;
    static final int PORT_LINK_LAYER = 88;

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

    static LibIbumad lib() throws SaException {
        load();
        if (unavailable != null) {
            throw new SaException(unavailable);
        }
        return lib;
    }

    static Pointer allocate(int size) {
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
                unavailable = "libibumad cannot be loaded (" + String.join("; ", tried) + "): install the Debian package libibumad3";
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

    /** Reads the fields of a struct umad_port filled by umad_get_port. */
    static PortInfo portInfo(String ca, int portNum, Pointer p) {
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
        return new PortInfo(ca, portNum, p.getInt(PORT_BASE_LID), p.getInt(PORT_LMC), p.getInt(PORT_SM_LID), p.getInt(PORT_SM_SL),
                p.getInt(PORT_STATE), prefix, guid, pkeys, new String(ll, 0, len, java.nio.charset.StandardCharsets.US_ASCII));
    }

    /** The MAD buffer of an ib_user_mad, wherever the ABI puts it (umad_size() is 56 before umad_open_port, 64 after). */
    static Pointer mad(Pointer umad) {
        return lib.umad_get_mad(umad);
    }
}
