package io.cmdemux.pathrecord.sa;

import io.cmdemux.gid.Gid;
import java.util.List;

/**
 * A local IB port as libibumad reports it (struct umad_port): where the SA is (sm_lid, sm_sl), our
 * LID and LMC, the port GID (prefix + GUID) and the P_Key table.
 *
 * @param state the PortInfo PortState: 4 is ACTIVE
 */
public record PortInfo(String device, int port, int baseLid, int lmc, int smLid, int smSl, int state, long gidPrefix,
        long portGuid, List<Integer> pkeys, String linkLayer) {
    public static final int STATE_ACTIVE = 4;

    public PortInfo {
        pkeys = List.copyOf(pkeys);
    }

    public Gid gid() {
        return new Gid(gidPrefix, portGuid);
    }

    /**
     * The P_Key index to send SA queries with: the default partition, as the kernel's
     * update_sm_ah picks it (ib_find_pkey for 0xffff, else the limited 0x7fff); 0 when neither is there.
     */
    public int defaultPkeyIndex() {
        int limited = -1;
        for (int i = 0; i < pkeys.size(); i++) {
            if (pkeys.get(i) == 0xffff) {
                return i;
            }
            if (pkeys.get(i) == 0x7fff && limited < 0) {
                limited = i;
            }
        }
        return Math.max(limited, 0);
    }
}
