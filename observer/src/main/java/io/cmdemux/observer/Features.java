package io.cmdemux.observer;

import java.util.List;

/**
 * What the running kernel offers the observer, and for each missing part what it is and how to get it.
 *
 * @param missing empty when everything is there
 */
public record Features(List<Missing> missing) {
    public Features {
        missing = List.copyOf(missing);
    }

    /**
     * One missing part.
     *
     * @param part what is missing, in a few words ("NETLINK_RDMA")
     * @param why what showed it ("socket(AF_NETLINK, NETLINK_RDMA): EPROTONOSUPPORT")
     * @param remedy how to get it ("modprobe rdma_cm")
     */
    public record Missing(String part, String why, String remedy) {
        @Override
        public String toString() {
            return part + " (" + why + "; " + remedy + ")";
        }
    }

    public boolean complete() {
        return missing.isEmpty();
    }

    /** One line for a user: everything that is missing, each with its remedy. */
    public String summary() {
        if (missing.isEmpty()) {
            return "the kernel has every part the observer needs";
        }
        StringBuilder b = new StringBuilder("the kernel lacks what the observer needs: ");
        for (int i = 0; i < missing.size(); i++) {
            b.append(i == 0 ? "" : "; ").append(missing.get(i));
        }
        return b.toString();
    }
}
