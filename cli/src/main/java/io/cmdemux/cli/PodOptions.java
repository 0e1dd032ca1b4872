package io.cmdemux.cli;

import io.cmdemux.namespaces.NetnsDiscovery;
import io.cmdemux.namespaces.NetnsId;
import io.cmdemux.pods.NetnsClaims;
import io.cmdemux.pods.PodDirectory;
import io.cmdemux.pods.PodRegistration;
import io.cmdemux.pods.PodStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * Where the read verbs find the pods cmdemux-cni registered: the daemon's state directory. Only
 * registrations whose namespace file still names the recorded namespace are shown.
 */
final class PodOptions {
    @Option(names = "--pods-dir", paramLabel = "DIR",
            description = "the pod registrations of cmdemux-cni and the daemon (default /run/cmdemux/pods);"
                    + " ignored with --snapshot")
    Path podsDir = Path.of("/run/cmdemux", PodStore.DIR_NAME);

    /** Empty for a snapshot file: registrations describe this host now, not the host it was taken on. */
    PodDirectory load(Path snapshot) {
        if (snapshot != null) {
            return PodDirectory.EMPTY;
        }
        NetnsId host;
        try {
            host = NetnsDiscovery.idOf(Path.of("/proc/self/ns/net"));
        } catch (IOException e) {
            return PodDirectory.EMPTY;
        }
        List<PodRegistration> live = new ArrayList<>();
        for (PodRegistration r : new PodStore(podsDir).readAll().registrations()) {
            try {
                NetnsClaims.check(r.netnsPath(), r.netnsInode(), host);
                live.add(r);
            } catch (NetnsClaims.Refused e) {
                // a pod deleted without a DEL: its file stays until the daemon prunes it
            }
        }
        return new PodDirectory(live);
    }
}
