package io.cmdemux.pods;

/**
 * The Kubernetes identity of a pod, from CNI_ARGS (K8S_POD_NAMESPACE, K8S_POD_NAME, K8S_POD_UID).
 * Any part may be null: runtimes outside Kubernetes pass none of them.
 */
public record PodRef(String namespace, String name, String uid) {
    public static final PodRef NONE = new PodRef(null, null, null);

    public boolean named() {
        return name != null && !name.isEmpty();
    }

    /** "default/rdma-0", or "" when the runtime did not say. */
    public String display() {
        if (!named()) {
            return "";
        }
        return (namespace == null || namespace.isEmpty() ? "" : namespace + "/") + name;
    }
}
