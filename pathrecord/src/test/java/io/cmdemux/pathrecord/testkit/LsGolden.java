package io.cmdemux.pathrecord.testkit;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** The messages src/test/c/ls_golden.c lays out in the kernel's layout, with the values it put in. */
public final class LsGolden {
    private static List<Golden> cache;

    private LsGolden() {}

    public record Golden(String cls, String name, byte[] bytes, Map<String, String> values) {
        public Expect expect() {
            return new Expect(name, values);
        }
    }

    /** The values of one message; every key must be looked at. */
    public static final class Expect {
        private final String name;
        private final Map<String, String> values;
        private final Set<String> unchecked;

        Expect(String name, Map<String, String> values) {
            this.name = name;
            this.values = values;
            this.unchecked = new TreeSet<>(values.keySet());
        }

        public String s(String key) {
            String v = values.get(key);
            if (v == null) {
                throw new AssertionError(name + ": ls_golden.c printed no " + key + " (has " + values.keySet() + ")");
            }
            unchecked.remove(key);
            return v;
        }

        public boolean absent(String key) {
            return "-".equals(s(key));
        }

        public long l(String key) {
            String v = s(key);
            return v.startsWith("0x") ? Long.parseUnsignedLong(v.substring(2), 16) : Long.parseLong(v);
        }

        public int i(String key) {
            return (int) l(key);
        }

        public void skip(String key) {
            s(key);
        }

        public void assertAllChecked() {
            if (!unchecked.isEmpty()) {
                throw new AssertionError(name + ": values printed by ls_golden.c but not checked: " + unchecked);
            }
        }
    }

    public static synchronized List<Golden> all() {
        if (cache == null) {
            CPrograms.Result r = CPrograms.run(List.of(CPrograms.build("ls_golden").toString()), "", "ls_golden");
            if (r.exit() != 0) {
                throw new AssertionError("ls_golden exited " + r.exit() + ": " + r.stderr());
            }
            List<Golden> out = new ArrayList<>();
            for (String line : CPrograms.lines(r.stdout())) {
                String[] f = line.split("\t", -1);
                if (f.length != 4) {
                    throw new AssertionError("ls_golden line has " + f.length + " fields, not 4: " + line);
                }
                out.add(new Golden(f[0], f[1], HexFormat.of().parseHex(f[2]), CPrograms.keyValues(f[3])));
            }
            cache = List.copyOf(out);
        }
        return cache;
    }

    public static List<Golden> ofClass(String cls) {
        return all().stream().filter(g -> g.cls().equals(cls)).toList();
    }

    public static Golden get(String name) {
        return all().stream().filter(g -> g.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("ls_golden.c emitted no message named " + name));
    }
}
