package io.cmdemux.pathrecord.sa;

import io.cmdemux.gid.Gid;
import io.cmdemux.pathrecord.PathQuery;
import io.cmdemux.pathrecord.PathRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The SA client as a small dedicated process, for tests that run it under the umad2sim preload
 * (a JVM's own descriptors must stay below 1024 there, so it cannot be the test JVM itself).
 *
 * <p>Usage: SaProbe DEVICE PORT [--timeout MS] [--retries N] [--outstanding N] [--repeat N] SGID-DGID[/PKEY][@DLID] ...
 * Prints one line per pair: "ok sgid=.. dgid=.. dlid=.. ..." or "err sgid=.. dgid=.. msg=..";
 * with --repeat, also "time pair=.. nanos=.." for each of the N sequential queries per pair.
 */
public final class SaProbe {
    private SaProbe() {}

    public static void main(String[] args) throws Exception {
        String device = args[0];
        int port = Integer.parseInt(args[1]);
        int timeout = 200;
        int retries = 2;
        int outstanding = 16;
        int repeat = 0;
        List<String> pairs = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            switch (args[i]) {
                case "--timeout":
                    timeout = Integer.parseInt(args[++i]);
                    break;
                case "--retries":
                    retries = Integer.parseInt(args[++i]);
                    break;
                case "--outstanding":
                    outstanding = Integer.parseInt(args[++i]);
                    break;
                case "--repeat":
                    repeat = Integer.parseInt(args[++i]);
                    break;
                default:
                    pairs.add(args[i]);
            }
        }
        try (SaClient c = SaClient.open(device, port, new SaClient.Settings(timeout, retries, outstanding))) {
            PortInfo p = c.port();
            System.out.println(
                    "port lid=" + p.baseLid() + " lmc=" + p.lmc() + " sm_lid=" + p.smLid() + " sm_sl=" + p.smSl()
                            + " state=" + p.state() + " gid=" + p.gid() + " pkey_index=" + p.defaultPkeyIndex()
                            + " pkeys="
                            + p.pkeys().stream()
                                    .filter(k -> k != 0)
                                    .map(k -> String.format("0x%04x", k))
                                    .collect(java.util.stream.Collectors.joining(",")));
            List<PathQuery> queries = new ArrayList<>();
            for (String pair : pairs) {
                queries.add(parse(device, port, pair));
            }
            // All at once, to exercise concurrent queries and TID matching.
            List<CompletableFuture<PathRecord>> fs = new ArrayList<>();
            for (PathQuery q : queries) {
                fs.add(c.query(q));
            }
            for (int i = 0; i < queries.size(); i++) {
                PathQuery q = queries.get(i);
                try {
                    System.out.println("ok " + line(fs.get(i).get(10, TimeUnit.SECONDS)));
                } catch (ExecutionException e) {
                    System.out.println("err sgid=" + q.sgid() + " dgid=" + q.dgid() + " msg="
                            + e.getCause().getMessage().replace(' ', '_'));
                }
            }
            for (int r = 0; r < repeat; r++) {
                for (int i = 0; i < queries.size(); i++) {
                    long t0 = System.nanoTime();
                    c.query(queries.get(i)).get(10, TimeUnit.SECONDS);
                    System.out.println("time pair=" + i + " nanos=" + (System.nanoTime() - t0));
                }
            }
        }
    }

    private static PathQuery parse(String device, int port, String pair) {
        String dlid = null;
        int at = pair.indexOf('@');
        if (at > 0) {
            dlid = pair.substring(at + 1);
            pair = pair.substring(0, at);
        }
        String pk = null;
        int slash = pair.indexOf('/');
        if (slash > 0) {
            pk = pair.substring(slash + 1);
            pair = pair.substring(0, slash);
        }
        // GIDs contain ':' and '-' never: split on the one '-'.
        int dash = pair.indexOf('-');
        PathQuery q =
                PathQuery.of(device, port, Gid.parse(pair.substring(0, dash)), Gid.parse(pair.substring(dash + 1)));
        q = pk == null ? q : q.withPkey(Integer.decode(pk));
        return dlid == null ? q : q.withDlid(Integer.decode(dlid));
    }

    static String line(PathRecord r) {
        return "sgid=" + r.sgid() + " dgid=" + r.dgid() + " dlid=" + r.dlid() + " slid=" + r.slid() + " pkey=0x"
                + String.format("%04x", r.pkey()) + " sl=" + r.sl() + " mtu=" + r.mtu() + " mtu_selector="
                + r.mtuSelector()
                + " rate=" + r.rate() + " rate_selector=" + r.rateSelector() + " packet_life_time=" + r.packetLifeTime()
                + " packet_life_time_selector=" + r.packetLifeTimeSelector() + " reversible=" + (r.reversible() ? 1 : 0)
                + " hop_limit=" + r.hopLimit() + " tclass=" + r.tclass() + " flow_label=" + r.flowLabel()
                + " qos_class=" + r.qosClass()
                + " service_id=0x" + Long.toHexString(r.serviceId()) + " preference=" + r.preference() + " numb_path="
                + r.numbPath();
    }
}
