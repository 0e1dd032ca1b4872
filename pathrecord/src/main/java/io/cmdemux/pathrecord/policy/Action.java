package io.cmdemux.pathrecord.policy;

import io.cmdemux.pathrecord.PathRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * What a rule does.
 *
 * @param deny answer RDMA_NL_LS_F_ERR: the kernel then asks the SA itself
 * @param fail answer with no usable record: the kernel fails the query without asking the SA
 * @param pkey ask the source for this P_Key's partition instead of the query's (null: keep)
 * @param alternate also find alternate paths (other path bits of the destination) for APM
 * @param directional also find the one-way outbound and inbound paths (path_use ALL stacks them)
 */
public record Action(
        boolean deny,
        boolean fail,
        Adjust sl,
        Adjust mtu,
        Adjust rate,
        Integer pkey,
        boolean alternate,
        boolean directional) {
    public static Action none() {
        return new Action(false, false, null, null, null, null, false, false);
    }

    /** The record with this rule's SL, MTU and rate changes. */
    public PathRecord apply(PathRecord r) {
        PathRecord out = r;
        if (sl != null) {
            out = out.withSl(sl.apply(out.sl()));
        }
        if (mtu != null) {
            out = out.withMtu(mtu.apply(out.mtu()));
        }
        if (rate != null) {
            out = out.withRate(rate.applyRate(out.rate()));
        }
        return out;
    }

    @Override
    public String toString() {
        List<String> p = new ArrayList<>();
        if (deny) {
            p.add("deny (kernel falls back to the SA)");
        }
        if (fail) {
            p.add("fail (no path, no fallback)");
        }
        if (sl != null) {
            p.add("SL " + sl);
        }
        if (mtu != null) {
            p.add("MTU " + mtu);
        }
        if (rate != null) {
            p.add("rate " + rate);
        }
        if (pkey != null) {
            p.add(String.format("P_Key 0x%04x", pkey));
        }
        if (alternate) {
            p.add("alternate paths");
        }
        if (directional) {
            p.add("outbound and inbound paths");
        }
        return p.isEmpty() ? "no change" : String.join(", ", p);
    }
}
