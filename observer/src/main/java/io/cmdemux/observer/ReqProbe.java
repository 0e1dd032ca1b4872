package io.cmdemux.observer;

import io.cmdemux.observer.btf.Btf;
import io.cmdemux.observer.btf.BtfException;
import io.cmdemux.observer.btf.Field;
import io.cmdemux.observer.btf.Layout;
import java.util.ArrayList;
import java.util.List;

/**
 * The kprobe event on {@code cma_ib_req_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ib_event)},
 * rdma_cm's handler for every REQ and SIDR REQ that ib_cm matched to a listener (cm_req_handler and
 * cm_sidr_req_handler, which are inlined and cannot be probed). It reads the request's own fields from the
 * kernel's arguments; every offset comes from the running kernel's BTF (the rdma_cm module's types), so the
 * definition fits the kernel it is built on and no other.
 *
 * <p>$argN needs a kernel with CONFIG_KPROBE_EVENTS and the architecture's regs_get_kernel_argument (4.20+).
 */
public final class ReqProbe {
    public static final String GROUP = "cmdemux";
    public static final String EVENT = "req";
    public static final String FUNCTION = "cma_ib_req_handler";
    /** The rdma_cm header that starts a REQ's private data (struct cma_hdr in cma.c, IBTA Annex A11). */
    static final String CMA_HDR = "cma_hdr";

    private final String definition;
    private final List<String> argNames;

    private ReqProbe(String definition, List<String> argNames) {
        this.definition = definition;
        this.argNames = List.copyOf(argNames);
    }

    /** Builds the definition from the rdma_cm module's BTF (split on vmlinux). */
    public static ReqProbe fromBtf(Btf rdmaCm) throws BtfException {
        Layout l = new Layout(rdmaCm);
        String ev = "$arg2";
        String id = "$arg1";
        Field device = l.field("ib_cm_id", "device");
        Field primary = l.field("ib_cm_event", "param.req_rcvd.primary_path");
        Field priv = l.field("ib_cm_event", "private_data");
        long cmaLen = l.sizeOf(rdmaCm.struct(CMA_HDR));
        List<String> names = new ArrayList<>();
        StringBuilder d = new StringBuilder("p:" + GROUP + "/" + EVENT + " " + FUNCTION);
        arg(d, names, "event", at(l.field("ib_cm_event", "event"), ev), "s32");
        arg(d, names, "local_id", at(l.field("ib_cm_id", "local_id"), id), "u32");
        arg(d, names, "remote_id", at(l.field("ib_cm_id", "remote_id"), id), "u32");
        arg(d, names, "service_id", at(l.field("ib_cm_id", "service_id"), id), "x64");
        arg(d, names, "device", "+" + l.field("ib_device", "name").byteOffset() + "(" + at(device, id) + ")",
                "string");
        arg(d, names, "port", at(l.field("ib_cm_event", "param.req_rcvd.port"), ev),
                unsigned(l, "param.req_rcvd.port"));
        arg(d, names, "bth_pkey", at(l.field("ib_cm_event", "param.req_rcvd.bth_pkey"), ev), "x16");
        arg(d, names, "sidr_port", at(l.field("ib_cm_event", "param.sidr_req_rcvd.port"), ev),
                unsigned(l, "param.sidr_req_rcvd.port"));
        arg(d, names, "sidr_pkey", at(l.field("ib_cm_event", "param.sidr_req_rcvd.pkey"), ev), "x16");
        // For a SIDR REQ the union holds sidr_req_rcvd, and primary_path's slot is another pointer: the kernel's
        // fetch reads it without faulting (copy_from_kernel_nofault), and the parser ignores these for SIDR.
        String path = at(primary, ev);
        arg(d, names, "pkey", "+" + l.field("sa_path_rec", "pkey").byteOffset() + "(" + path + ")", "x16");
        arg(d, names, "sgid", "+" + l.field("sa_path_rec", "sgid").byteOffset() + "(" + path + ")", "x8[16]");
        arg(d, names, "dgid", "+" + l.field("sa_path_rec", "dgid").byteOffset() + "(" + path + ")", "x8[16]");
        arg(d, names, "cma", "+0(" + at(priv, ev) + ")", "x8[" + cmaLen + "]");
        // The GID entry ib_cm matched the REQ to (ib_init_ah_attr_from_wc): on RoCE its ndev is a vlan device
        // exactly when the frame was tagged, with the frame's VID (find_gid_filter), so this is how the frame's
        // tag reaches us. RoCE always has one (ib_cm sends nothing without it); on InfiniBand without a GRH the
        // pointer may be NULL, and the value means nothing there.
        Field gidIndex = l.field("ib_gid_attr", "index");
        arg(d, names, "gid_index", "+" + gidIndex.byteOffset() + "("
                + at(l.field("ib_cm_event", "param.req_rcvd.ppath_sgid_attr"), ev) + ")", "u16");
        arg(d, names, "sidr_gid_index", "+" + gidIndex.byteOffset() + "("
                + at(l.field("ib_cm_event", "param.sidr_req_rcvd.sgid_attr"), ev) + ")", "u16");
        return new ReqProbe(d.toString(), names);
    }

    private static String at(Field f, String base) {
        return "+" + f.byteOffset() + "(" + base + ")";
    }

    /** The kprobe type for an unsigned integer member of this size (the port is a u8 in 7.x, a u32 elsewhere). */
    private static String unsigned(Layout l, String path) throws BtfException {
        long size = l.field("ib_cm_event", path).size();
        if (size != 1 && size != 2 && size != 4 && size != 8) {
            throw new BtfException(-1, "ib_cm_event." + path + " is " + size + " bytes, not an integer");
        }
        return "u" + size * 8;
    }

    private static void arg(StringBuilder d, List<String> names, String name, String fetch, String type) {
        d.append(' ').append(name).append('=').append(fetch).append(':').append(type);
        names.add(name);
    }

    /** The line to write to kprobe_events. */
    public String definition() {
        return definition;
    }

    /** The line that removes it again. */
    public static String removal() {
        return "-:" + GROUP + "/" + EVENT;
    }

    public List<String> argNames() {
        return argNames;
    }

    @Override
    public String toString() {
        return definition;
    }
}
