package io.cmdemux.pathrecord;

import io.cmdemux.pathrecord.ls.PathUse;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The answer to one query, before it is flagged for a path use: the seed's six APM paths. Only
 * {@code primary} is required; the one-way paths exist when the source was asked for them (a
 * policy's "directional"), the alternates when a policy asked for alternate paths.
 *
 * @param primary the reversible path SGID→DGID, used for GMPs and both directions
 * @param outbound the one-way forward path SGID→DGID, or null
 * @param inbound the one-way return path DGID→SGID, or null
 */
public record Paths(PathRecord primary, PathRecord outbound, PathRecord inbound,
        PathRecord alternate, PathRecord alternateOutbound, PathRecord alternateInbound) {

    public Paths {
        Objects.requireNonNull(primary, "primary");
    }

    public static Paths of(PathRecord primary) {
        return new Paths(primary, null, null, null, null, null);
    }

    public Paths withDirectional(PathRecord out, PathRecord in) {
        return new Paths(primary, out, in, alternate, alternateOutbound, alternateInbound);
    }

    public Paths withAlternates(PathRecord alt, PathRecord altOut, PathRecord altIn) {
        return new Paths(primary, outbound, inbound, alt, altOut, altIn);
    }

    /** Every record, for policy rewrites that apply to all of them. */
    public Paths map(java.util.function.UnaryOperator<PathRecord> f) {
        return new Paths(f.apply(primary), outbound == null ? null : f.apply(outbound),
                inbound == null ? null : f.apply(inbound), alternate == null ? null : f.apply(alternate),
                alternateOutbound == null ? null : f.apply(alternateOutbound),
                alternateInbound == null ? null : f.apply(alternateInbound));
    }

    /**
     * The records of a reply for {@code use}, flagged so that the kernel keeps the ones meant for
     * it (sa_query.c ib_nl_process_good_resolve_rsp keeps a record when (flags & mask) == mask, at
     * most three) and files each where it belongs (cma.c cma_query_handler: GMP → path_rec,
     * INBOUND → path_rec_inbound, OUTBOUND → path_rec_outbound, any other primary → -EINVAL).
     * The GMP record always comes first: Linux ≤ 6.1 takes only the first match, and consumers
     * other than the RDMA CM read only the first record.
     * <ul>
     * <li>UNIDIRECTIONAL (mask PRIMARY|OUTBOUND): the forward path, PRIMARY|OUTBOUND (ibacm's flags);
     * <li>GMP (mask PRIMARY|GMP|BIDIRECTIONAL): the reversible path, PRIMARY|GMP|BIDIRECTIONAL;
     * <li>ALL (mask PRIMARY): that, then PRIMARY|OUTBOUND and PRIMARY|INBOUND when known: three primaries.
     * </ul>
     * Alternates follow with ALTERNATE instead of PRIMARY: no kernel keeps them today (they fail
     * every mask), they are there for an APM-aware consumer (docs/APM.md).
     */
    public List<PathRecordData> records(PathUse use) {
        List<PathRecordData> out = new ArrayList<>(6);
        switch (use) {
            case UNIDIRECTIONAL:
                out.add(new PathRecordData(
                        PathFlags.PRIMARY | PathFlags.OUTBOUND, outbound != null ? outbound : primary));
                addIf(out, PathFlags.ALTERNATE | PathFlags.OUTBOUND,
                        alternateOutbound != null ? alternateOutbound : alternate);
                break;
            case GMP:
                out.add(new PathRecordData(PathFlags.PRIMARY | PathFlags.GMP | PathFlags.BIDIRECTIONAL, primary));
                addIf(out, PathFlags.ALTERNATE | PathFlags.GMP | PathFlags.BIDIRECTIONAL, alternate);
                break;
            default:
                out.add(new PathRecordData(PathFlags.PRIMARY | PathFlags.GMP | PathFlags.BIDIRECTIONAL, primary));
                addIf(out, PathFlags.PRIMARY | PathFlags.OUTBOUND, outbound);
                addIf(out, PathFlags.PRIMARY | PathFlags.INBOUND, inbound);
                addIf(out, PathFlags.ALTERNATE | PathFlags.GMP | PathFlags.BIDIRECTIONAL, alternate);
                addIf(out, PathFlags.ALTERNATE | PathFlags.OUTBOUND, alternateOutbound);
                addIf(out, PathFlags.ALTERNATE | PathFlags.INBOUND, alternateInbound);
        }
        return out;
    }

    private static void addIf(List<PathRecordData> out, int flags, PathRecord r) {
        if (r != null) {
            out.add(new PathRecordData(flags, r));
        }
    }

    /** The shortest packet lifetime among the records, for cache expiry. */
    public long minPacketLifeTimeNanos() {
        long m = primary.packetLifeTimeNanos();
        for (PathRecord r : new PathRecord[] {outbound, inbound, alternate, alternateOutbound, alternateInbound}) {
            if (r != null) {
                m = Math.min(m, r.packetLifeTimeNanos());
            }
        }
        return m;
    }
}
