package io.cmdemux.gid;

import java.util.List;
import java.util.OptionalInt;

/** A port's P_Key table, by index. Bit 15 of a P_Key is full membership. */
public record PkeyTable(List<Integer> pkeys) {
    public static final int FULL_MEMBER = 0x8000;
    public static final int PKEY_MASK = 0x7fff;

    public PkeyTable {
        pkeys = List.copyOf(pkeys);
    }

    /**
     * The table index for a P_Key, as ib_find_cached_pkey finds it: entries are compared on the low
     * 15 bits, a full-member entry wins over a limited one, otherwise the first limited match.
     */
    public OptionalInt indexOf(int pkey) {
        int partial = -1;
        for (int i = 0; i < pkeys.size(); i++) {
            int e = pkeys.get(i);
            if ((e & PKEY_MASK) == (pkey & PKEY_MASK)) {
                if ((e & FULL_MEMBER) != 0) {
                    return OptionalInt.of(i);
                }
                if (partial < 0) {
                    partial = i;
                }
            }
        }
        return partial < 0 ? OptionalInt.empty() : OptionalInt.of(partial);
    }
}
