package io.cmdemux.netdev;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Classic BPF socket filters (SO_ATTACH_FILTER) as struct sock_filter quadruples {code, jt, jf, k},
 * built with a tiny label-resolving assembler. Opcodes from <linux/filter.h>.
 */
public final class ClassicBpf {
    private static final int LD_H_ABS = 0x28;
    private static final int LD_B_ABS = 0x30;
    private static final int LDX_B_MSH = 0xb1;
    private static final int LD_H_IND = 0x48;
    private static final int JEQ_K = 0x15;
    private static final int JSET_K = 0x45;
    private static final int RET_K = 0x06;
    private static final int ACCEPT_BYTES = 262144;

    private final List<Object[]> code = new ArrayList<>();
    private final Map<String, Integer> labels = new HashMap<>();

    private ClassicBpf() {}

    private ClassicBpf label(String name) {
        labels.put(name, code.size());
        return this;
    }

    private ClassicBpf op(int opcode, int k) {
        code.add(new Object[] {opcode, null, null, k});
        return this;
    }

    private ClassicBpf jump(int opcode, int k, String ifTrue, String ifFalse) {
        code.add(new Object[] {opcode, ifTrue, ifFalse, k});
        return this;
    }

    private int[][] assemble() {
        int[][] out = new int[code.size()][];
        for (int i = 0; i < code.size(); i++) {
            Object[] c = code.get(i);
            out[i] = new int[] {(Integer) c[0], offset(i, (String) c[1]), offset(i, (String) c[2]), (Integer) c[3]};
        }
        return out;
    }

    private int offset(int from, String label) {
        if (label == null) {
            return 0;
        }
        int d = labels.get(label) - from - 1;
        if (d < 0 || d > 255) {
            throw new IllegalStateException("BPF jump to " + label + " out of range");
        }
        return d;
    }

    /**
     * Accepts UDP to {@code port} over IPv4 (unfragmented) or IPv6 (UDP as the first next header),
     * untagged or with one 802.1Q tag left in the frame. Tags the driver moved into skb metadata
     * are invisible to the filter, so those frames take the untagged branch.
     */
    public static int[][] udpDstPort(int port) {
        ClassicBpf p = new ClassicBpf();
        p.op(LD_H_ABS, 12).jump(JEQ_K, 0x8100, "tagged", null);
        for (int tag : new int[] {0, 4}) {
            String s = tag == 0 ? "" : "-tagged";
            if (tag == 4) {
                p.label("tagged").op(LD_H_ABS, 16);
            }
            p.jump(JEQ_K, 0x0800, "v4" + s, null).jump(JEQ_K, 0x86dd, "v6" + s, "drop");
            p.label("v4" + s).op(LD_B_ABS, 23 + tag).jump(JEQ_K, 17, null, "drop")
                    .op(LD_H_ABS, 20 + tag).jump(JSET_K, 0x1fff, "drop", null)
                    .op(LDX_B_MSH, 14 + tag).op(LD_H_IND, 16 + tag).jump(JEQ_K, port, "accept", "drop");
            p.label("v6" + s).op(LD_B_ABS, 20 + tag).jump(JEQ_K, 17, null, "drop")
                    .op(LD_H_ABS, 56 + tag).jump(JEQ_K, port, "accept", "drop");
        }
        p.label("accept").op(RET_K, ACCEPT_BYTES);
        p.label("drop").op(RET_K, 0);
        return p.assemble();
    }
}
