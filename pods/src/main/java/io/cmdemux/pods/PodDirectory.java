package io.cmdemux.pods;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** The registrations known at one moment, looked up by namespace for the views. Immutable. */
public record PodDirectory(List<PodRegistration> registrations) {
    public static final PodDirectory EMPTY = new PodDirectory(List.of());

    public PodDirectory {
        List<PodRegistration> sorted = new ArrayList<>(registrations);
        sorted.sort(Comparator.comparing((PodRegistration r) -> r.pod().display())
                .thenComparing(r -> r.key().toString()));
        registrations = List.copyOf(sorted);
    }

    /** The registrations of the namespace with this nsfs inode. */
    public List<PodRegistration> inNetns(long inode) {
        List<PodRegistration> out = new ArrayList<>();
        for (PodRegistration r : registrations) {
            if (r.netnsInode() == inode) {
                out.add(r);
            }
        }
        return out;
    }

    /** By "NAMESPACE/NAME" (or a bare NAME, in any Kubernetes namespace). */
    public List<PodRegistration> byPod(String ref) {
        int slash = ref.indexOf('/');
        String ns = slash < 0 ? null : ref.substring(0, slash);
        String name = slash < 0 ? ref : ref.substring(slash + 1);
        List<PodRegistration> out = new ArrayList<>();
        for (PodRegistration r : registrations) {
            if (name.equals(r.pod().name()) && (ns == null || ns.equals(r.pod().namespace()))) {
                out.add(r);
            }
        }
        return out;
    }

    /** "default/rdma-0" for every distinct named pod of a namespace, in order. */
    public List<String> podNames(long inode) {
        List<String> out = new ArrayList<>();
        for (PodRegistration r : inNetns(inode)) {
            String d = r.pod().display();
            if (!d.isEmpty() && !out.contains(d)) {
                out.add(d);
            }
        }
        return out;
    }
}
