package io.cmdemux.ingress.oracle;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** tshark as the wire-format oracle (shared/ORACLES.md): one row of named fields per frame. */
public final class Tshark {
    private Tshark() {}

    /** tshark's fields for every frame of {@code pcap}; a field tshark did not set is "". */
    public static List<Map<String, String>> fields(Path pcap, List<String> fields)
            throws IOException, InterruptedException {
        Path tshark = ExternalTool.require("tshark", "tshark");
        List<String> cmd = new ArrayList<>(List.of(tshark.toString(), "-r", pcap.toString(), "-T", "fields",
                "-E", "header=n", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=,"));
        for (String f : fields) {
            cmd.add("-e");
            cmd.add(f);
        }
        String out = ExternalTool.run(cmd);
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : out.split("\n", -1)) {
            if (line.isEmpty()) {
                continue;
            }
            String[] cells = line.split("\t", -1);
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < fields.size(); i++) {
                row.put(fields.get(i), i < cells.length ? cells[i] : "");
            }
            rows.add(row);
        }
        return rows;
    }

    /**
     * One field tshark knows (a row of {@code tshark -G fields}): its type (FT_UINT8, FT_BYTES, ...) and bit mask, 0
     * for none.
     */
    public record Field(String name, String type, long bitmask) {}

    /** Every field tshark knows whose name starts with {@code prefix}, in tshark's order. */
    public static List<Field> registeredFields(String prefix) throws IOException, InterruptedException {
        Path tshark = ExternalTool.require("tshark", "tshark");
        List<Field> out = new ArrayList<>();
        for (String line : ExternalTool.run(List.of(tshark.toString(), "-G", "fields")).split("\n")) {
            // F, name, abbreviation, type, parent protocol, base, bit mask, blurb
            String[] cols = line.split("\t", -1);
            if (cols.length >= 7 && cols[0].equals("F") && cols[2].startsWith(prefix)) {
                out.add(new Field(cols[2], cols[3], cols[6].isEmpty() ? 0 : number(cols[6])));
            }
        }
        return out;
    }

    /** Parses tshark's number text: "0x..." hex or decimal. */
    public static long number(String text) {
        String t = text.trim();
        if (t.isEmpty()) {
            throw new AssertionError("tshark gave no value");
        }
        if (t.startsWith("0x") || t.startsWith("0X")) {
            return Long.parseUnsignedLong(t.substring(2), 16);
        }
        return Long.parseLong(t);
    }

    /** tshark's bytes text as bytes (it prints plain hex, older versions with colons). */
    public static byte[] bytes(String text) {
        return java.util.HexFormat.of().parseHex(text.replace(":", "").trim());
    }
}
