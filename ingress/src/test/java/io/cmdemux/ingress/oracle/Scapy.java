package io.cmdemux.ingress.oracle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** scapy (Debian python3-scapy, run by the system /usr/bin/python3) as a second RoCEv2 encoder. */
public final class Scapy {
    private Scapy() {}

    /**
     * A Python function {@code icrc_v6(p)}: the ICRC of a RoCEv2 packet over IPv6 as its 4 wire bytes,
     * which scapy's {@code BTH.compute_icrc} does not give (it handles IPv4 only). scapy serialises the
     * pseudo header with the fields IBTA Annex A17 masks set to ones (traffic class, flow label, hop
     * limit, UDP checksum, BTH byte 4) and zlib's CRC-32 is taken of 8 bytes of ones and that, as
     * scapy's IPv4 path does. The script imports struct, zlib and scapy's IPv6, UDP and raw.
     */
    public static final String ICRC_V6 = String.join("\n",
            "def icrc_v6(p):",
            "    ip6 = p[IPv6].copy()",
            "    ip6.tc = 0xff; ip6.fl = 0xfffff; ip6.hlim = 0xff",
            "    ip6[UDP].chksum = 0xffff",
            "    b = bytearray(raw(ip6))",
            "    b[40 + 8 + 4] = 0xff",
            "    return struct.pack('<I', zlib.crc32(b'\\xff' * 8 + bytes(b[:-4])) & 0xffffffff)",
            "");

    /** Runs a Python script with arguments under /usr/bin/python3 and returns its stdout. */
    public static String runScript(String script, List<String> args) throws IOException, InterruptedException {
        Path python = ExternalTool.require("python3", "python3-scapy");
        String probe = ExternalTool.runAllowingFailure(List.of(python.toString(), "-c", "import scapy.contrib.roce"));
        if (probe != null) {
            throw new AssertionError("scapy is not importable by " + python + ": this test needs the Debian package "
                    + "'python3-scapy' (apt-get install -y python3-scapy; .ci/run installs it): " + probe);
        }
        Path file = Files.createTempFile("scapy-oracle", ".py");
        try {
            Files.writeString(file, script);
            return ExternalTool.run(ExternalTool.concat(List.of(python.toString(), file.toString()), args));
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
