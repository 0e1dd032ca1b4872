package io.cmdemux.cni;

/**
 * One reason a pod interface is not ready for RDMA.
 *
 * @param code the CNI error code it maps to (100+ ours, 11 for a transient one)
 * @param transientProblem something still converging (a GID the kernel or the daemon has not added
 *     yet): waited for, then reported as 11, try again later
 * @param subject the interface, "net1"
 * @param fix one line that says what to do
 */
record ReadinessProblem(int code, boolean transientProblem, String subject, String message, String fix) {
    static ReadinessProblem waiting(String subject, String message, String fix) {
        return new ReadinessProblem(CniError.TRY_AGAIN_LATER, true, subject, message, fix);
    }

    static ReadinessProblem permanent(int code, String subject, String message, String fix) {
        return new ReadinessProblem(code, false, subject, message, fix);
    }
}
