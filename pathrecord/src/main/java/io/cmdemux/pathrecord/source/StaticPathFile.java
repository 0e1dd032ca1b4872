package io.cmdemux.pathrecord.source;

import io.cmdemux.netdev.MalformedException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * OpenSM's dump_pr "full" PathRecord dump (opensm-path-records.dump, the full_opensm_v1 format
 * that ibacm preloads from its route_data_file). One section per source port, then one line per
 * destination LID:
 * <pre>
 * Channel Adapter 0x0002c90300000001, base LID 1, "node description", port 1
 * # LID  : SL : MTU : RATE
 * 0x0003 : 0  : 4   : 3
 * 0x0005 : UNREACHABLE
 * </pre>
 * The section headers also map every base LID to its port GUID, which turns a destination GID
 * into a LID (acmp.c acmp_parse_osm_fullv1_lid2guid). MTU and rate are IBTA enum values.
 */
public record StaticPathFile(Map<Long, Section> sections, Map<Integer, Long> lidToGuid) {

    /** One path line: SL, MTU and rate, or unreachable. */
    public record Entry(boolean reachable, int sl, int mtu, int rate) {}

    /** A source port: its GUID, base LID, description, port number and paths by destination LID. */
    public record Section(long guid, int baseLid, String description, int port, Map<Integer, Entry> paths) {
        public Section {
            paths = Collections.unmodifiableMap(new LinkedHashMap<>(paths));
        }
    }

    public StaticPathFile {
        sections = Collections.unmodifiableMap(new LinkedHashMap<>(sections));
        lidToGuid = Collections.unmodifiableMap(new LinkedHashMap<>(lidToGuid));
    }

    /** The base LID of the port with this GUID, when some section names it. */
    public Optional<Integer> lidOf(long guid) {
        Section s = sections.get(guid);
        if (s != null) {
            return Optional.of(s.baseLid());
        }
        for (Map.Entry<Integer, Long> e : lidToGuid.entrySet()) {
            if (e.getValue() == guid) {
                return Optional.of(e.getKey());
            }
        }
        return Optional.empty();
    }

    /**
     * Parses the dump. Lines that start with '#' and blank lines are skipped; anything else must be
     * a section header or a path line within a section. Errors carry the byte offset of the line.
     */
    public static StaticPathFile parse(String text) throws MalformedException {
        Map<Long, Section> sections = new LinkedHashMap<>();
        Map<Integer, Long> lids = new LinkedHashMap<>();
        long guid = -1;
        int baseLid = 0;
        int portNum = 0;
        String desc = "";
        Map<Integer, Entry> paths = null;
        int offset = 0;
        int lineNo = 0;
        for (String raw : text.split("\n", -1)) {
            lineNo++;
            int lineStart = offset;
            offset += raw.getBytes(StandardCharsets.UTF_8).length + 1;
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("Channel Adapter ") || line.startsWith("Switch ") || line.startsWith("Router ")) {
                if (paths != null) {
                    sections.put(guid, new Section(guid, baseLid, desc, portNum, paths));
                }
                String rest = line.substring(line.startsWith("Channel Adapter ") ? 16 : line.indexOf(' ') + 1);
                String[] parts = rest.split(",", 2);
                try {
                    guid = Long.parseUnsignedLong(strip0x(parts[0].strip()), 16);
                } catch (NumberFormatException e) {
                    throw new MalformedException(
                            lineStart, "line " + lineNo + ": port GUID '" + parts[0].strip() + "' is not hex");
                }
                int b = rest.indexOf("base LID");
                if (b < 0) {
                    throw new MalformedException(lineStart, "line " + lineNo + ": section header without 'base LID'");
                }
                String after = rest.substring(b + "base LID".length()).strip();
                String lidText = after.split(",", 2)[0].strip();
                baseLid = number(lidText, lineStart, lineNo, "base LID");
                int q1 = rest.indexOf('"');
                int q2 = rest.lastIndexOf('"');
                desc = q1 >= 0 && q2 > q1 ? rest.substring(q1 + 1, q2) : "";
                int p = rest.lastIndexOf("port ");
                portNum = p >= 0 && p > q2 ? number(rest.substring(p + 5).strip(), lineStart, lineNo, "port") : 0;
                if (baseLid > 0 && baseLid < 0xc000) {
                    lids.putIfAbsent(baseLid, guid);
                }
                paths = new LinkedHashMap<>();
                continue;
            }
            if (paths == null) {
                throw new MalformedException(lineStart,
                        "line " + lineNo + ": a path line before any 'Channel Adapter', 'Switch' or 'Router' section");
            }
            String[] f = line.split(":", -1); // -1: ":" alone is two empty fields, not none
            int dlid = number(f[0].strip(), lineStart, lineNo, "LID");
            if (f.length == 2 && f[1].strip().equals("UNREACHABLE")) {
                paths.put(dlid, new Entry(false, 0, 0, 0));
                continue;
            }
            if (f.length != 4) {
                throw new MalformedException(lineStart,
                        "line " + lineNo + ": expected 'LID : SL : MTU : RATE' or 'LID : UNREACHABLE', got '" + line
                                + "'");
            }
            int sl = number(f[1].strip(), lineStart, lineNo, "SL");
            int mtu = number(f[2].strip(), lineStart, lineNo, "MTU");
            int rate = number(f[3].strip(), lineStart, lineNo, "rate");
            if (sl > 15 || mtu > 63 || rate > 63) {
                throw new MalformedException(lineStart,
                        "line " + lineNo + ": SL " + sl + ", MTU " + mtu + " or rate " + rate + " out of range");
            }
            paths.put(dlid, new Entry(true, sl, mtu, rate));
        }
        if (paths != null) {
            sections.put(guid, new Section(guid, baseLid, desc, portNum, paths));
        }
        return new StaticPathFile(sections, lids);
    }

    private static String strip0x(String s) {
        return s.startsWith("0x") || s.startsWith("0X") ? s.substring(2) : s;
    }

    private static int number(String s, int off, int lineNo, String what) throws MalformedException {
        try {
            int v = s.startsWith("0x") || s.startsWith("0X")
                    ? Integer.parseInt(s.substring(2), 16)
                    : Integer.parseInt(s);
            if (v < 0 || v > 0xffff) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new MalformedException(
                    off, "line " + lineNo + ": " + what + " '" + s + "' is not a number in 0..65535");
        }
    }
}
