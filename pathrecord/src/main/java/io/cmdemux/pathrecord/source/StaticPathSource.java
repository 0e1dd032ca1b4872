package io.cmdemux.pathrecord.source;

import io.cmdemux.netdev.MalformedException;
import io.cmdemux.pathrecord.PathQuery;
import io.cmdemux.pathrecord.PathRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/**
 * Paths from a dump_pr file, for fabrics where the SA cannot be asked. Records are built the way
 * ibacm's acmp_parse_osm_fullv1_paths builds them: SLID is the source section's base LID, the
 * DLID is the destination GUID's base LID (or the query's DLID), SL, MTU and rate come from the
 * line, selectors are "exactly", the P_Key is the query's (default 0xffff), the packet lifetime is
 * configured (ibacm takes the port's subnet timeout) and 0 for a path to oneself.
 */
public final class StaticPathSource implements PathSource {
    private final StaticPathFile file;
    private final int packetLifeTime;
    private final String origin;

    public StaticPathSource(StaticPathFile file, int packetLifeTime, String origin) {
        if (packetLifeTime < 0 || packetLifeTime > 63) {
            throw new IllegalArgumentException("packet lifetime " + packetLifeTime + " outside 0..63");
        }
        this.file = file;
        this.packetLifeTime = packetLifeTime;
        this.origin = origin;
    }

    public static StaticPathSource load(Path path, int packetLifeTime) throws IOException {
        String text = Files.readString(path);
        try {
            return new StaticPathSource(StaticPathFile.parse(text), packetLifeTime, path.toString());
        } catch (MalformedException e) {
            throw new IOException(path + ": " + e.reason(), e);
        }
    }

    public StaticPathFile file() {
        return file;
    }

    @Override
    public String name() {
        return "static";
    }

    @Override
    public CompletableFuture<PathRecord> resolve(PathQuery q) {
        try {
            return CompletableFuture.completedFuture(lookup(q));
        } catch (NoPathException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The record for {@code q}, synchronously. */
    public PathRecord lookup(PathQuery q) throws NoPathException {
        if (q.sgid() == null) {
            throw new NoPathException("a static path needs the SGID, to find its source section in " + origin);
        }
        StaticPathFile.Section s = file.sections().get(q.sgid().lo());
        if (s == null) {
            throw new NoPathException(origin + " has no section for the source port GUID 0x"
                    + Long.toHexString(q.sgid().lo()));
        }
        int dlid;
        if (q.dlid().isPresent()) {
            dlid = q.dlid().getAsInt();
            // A LID some section names as another port's base LID is not one of the destination's path bits.
            Long owner = file.lidToGuid().get(dlid);
            if (owner != null && owner != q.dgid().lo()) {
                throw new NoPathException(origin + ": LID " + dlid + " belongs to port GUID 0x"
                        + Long.toHexString(owner) + ", not to " + q.dgid());
            }
        } else {
            dlid = file.lidOf(q.dgid().lo())
                    .orElseThrow(() -> new NoPathException(origin + " names no port with GUID 0x"
                            + Long.toHexString(q.dgid().lo()) + " (" + q.dgid() + ")"));
        }
        StaticPathFile.Entry e = s.paths().get(dlid);
        if (e == null) {
            throw new NoPathException(origin + " lists no path from LID " + s.baseLid() + " to LID " + dlid);
        }
        if (!e.reachable()) {
            throw new NoPathException(origin + ": LID " + dlid + " is UNREACHABLE from LID " + s.baseLid());
        }
        int plt = dlid == s.baseLid() ? 0 : packetLifeTime;
        return new PathRecord(q.serviceId().orElse(0), q.dgid(), q.sgid(), dlid, s.baseLid(), false, 0, 0,
                q.tclass().orElse(0), q.reversible(), 0, q.pkey().orElse(0xffff), q.qosClass().orElse(0), e.sl(),
                PathRecord.SELECTOR_EXACTLY, e.mtu(), PathRecord.SELECTOR_EXACTLY, e.rate(),
                PathRecord.SELECTOR_EXACTLY, plt, 0);
    }
}
