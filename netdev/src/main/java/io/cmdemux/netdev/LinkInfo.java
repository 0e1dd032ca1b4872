package io.cmdemux.netdev;

import java.util.OptionalInt;

/**
 * Kind-specific data of a link, decoded from IFLA_INFO_DATA (or IFLA_INFO_SLAVE_DATA for a bond
 * slave). Values keep the kernel's numbers; the name methods give iproute2's words for them.
 */
public sealed interface LinkInfo {

    record Veth() implements LinkInfo {}

    record Bridge() implements LinkInfo {}

    /** macvlan and macvtap share this data (drivers/net/macvlan.c). */
    record Macvlan(int mode, int flags) implements LinkInfo {
        // <linux/if_link.h> enum macvlan_mode
        public static final int MODE_PRIVATE = 1;
        public static final int MODE_VEPA = 2;
        public static final int MODE_BRIDGE = 4;
        public static final int MODE_PASSTHRU = 8;
        public static final int MODE_SOURCE = 16;

        public String modeName() {
            return switch (mode) {
                case MODE_PRIVATE -> "private";
                case MODE_VEPA -> "vepa";
                case MODE_BRIDGE -> "bridge";
                case MODE_PASSTHRU -> "passthru";
                case MODE_SOURCE -> "source";
                default -> "mode " + mode;
            };
        }
    }

    record Ipvlan(int mode, int flags) implements LinkInfo {
        // <linux/if_link.h> enum ipvlan_mode and IPVLAN_F_*
        public static final int MODE_L2 = 0;
        public static final int MODE_L3 = 1;
        public static final int MODE_L3S = 2;
        public static final int F_PRIVATE = 0x01;
        public static final int F_VEPA = 0x02;

        public String modeName() {
            return switch (mode) {
                case MODE_L2 -> "l2";
                case MODE_L3 -> "l3";
                case MODE_L3S -> "l3s";
                default -> "mode " + mode;
            };
        }

        public String flagsName() {
            if ((flags & F_PRIVATE) != 0) {
                return "private";
            }
            return (flags & F_VEPA) != 0 ? "vepa" : "bridge";
        }
    }

    /** @param activeSlave ifindex of IFLA_BOND_ACTIVE_SLAVE, or 0 when there is none */
    record Bond(int mode, int activeSlave) implements LinkInfo {
        // include/uapi/linux/if_bonding.h BOND_MODE_*
        public static final int MODE_ACTIVEBACKUP = 1;

        public String modeName() {
            return switch (mode) {
                case 0 -> "balance-rr";
                case 1 -> "active-backup";
                case 2 -> "balance-xor";
                case 3 -> "broadcast";
                case 4 -> "802.3ad";
                case 5 -> "balance-tlb";
                case 6 -> "balance-alb";
                default -> "mode " + mode;
            };
        }
    }

    /** A bond port, from IFLA_INFO_SLAVE_DATA. */
    record BondSlave(int state, int miiStatus, int linkFailureCount, HwAddr permHwaddr, int queueId)
            implements LinkInfo {
        // BOND_STATE_ACTIVE / BOND_STATE_BACKUP
        public static final int STATE_ACTIVE = 0;
        public static final int STATE_BACKUP = 1;

        public boolean active() {
            return state == STATE_ACTIVE;
        }

        public String stateName() {
            return state == STATE_ACTIVE ? "ACTIVE" : state == STATE_BACKUP ? "BACKUP" : "state " + state;
        }
    }

    /** @param protocol ETH_P_8021Q (0x8100) or ETH_P_8021AD (0x88a8) */
    record Vlan(int id, int protocol, int flags) implements LinkInfo {
        public String protocolName() {
            return switch (protocol) {
                case 0x8100 -> "802.1Q";
                case 0x88a8 -> "802.1ad";
                default -> String.format("0x%04x", protocol);
            };
        }
    }

    /** drivers/infiniband/ulp/ipoib/ipoib_netlink.c: IFLA_IPOIB_PKEY, _MODE, _UMCAST. */
    record Ipoib(int pkey, int mode, int umcast) implements LinkInfo {
        public static final int MODE_DATAGRAM = 0;
        public static final int MODE_CONNECTED = 1;

        public String modeName() {
            return mode == MODE_DATAGRAM ? "datagram" : mode == MODE_CONNECTED ? "connected" : "mode " + mode;
        }
    }

    record Vxlan(OptionalInt vni) implements LinkInfo {}

    /** Any other kind, or none: "device" for hardware, "loopback" for lo. Never an error. */
    record Generic(String kind) implements LinkInfo {}
}
