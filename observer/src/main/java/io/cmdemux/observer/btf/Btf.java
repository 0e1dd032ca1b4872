package io.cmdemux.observer.btf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The types of one BTF blob: /sys/kernel/btf/vmlinux, or a module's file there, which is split BTF whose type
 * IDs and string offsets continue those of vmlinux (libbpf's btf__parse_split). Only what the observer needs is
 * kept: names, sizes, references, struct and union members, arrays.
 */
public final class Btf {
    /** struct btf_header.magic; read in the blob's own byte order, which the magic reveals. */
    private static final int BTF_MAGIC = 0xeb9f;
    private static final int HEADER_MIN = 24;
    private static final int TYPE_HEADER = 12;
    /** A sanity bound: vmlinux has ~150k types; a count far beyond that is a corrupt header, not a kernel. */
    private static final int MAX_TYPES = 4_000_000;

    private final Btf base;
    private final int firstId;
    private final List<BtfType> types;
    private final Map<String, List<Integer>> byName = new HashMap<>();

    private final Strings strings;
    /** The base's string section length plus ours: split BTF's offsets continue from here. */
    private final int stringsLength;

    private Btf(Btf base, int firstId, List<BtfType> types, Strings strings) {
        this.base = base;
        this.firstId = firstId;
        this.types = types;
        this.strings = strings;
        this.stringsLength = strings.baseLength + strings.length;
        for (BtfType t : types) {
            if (!t.name().isEmpty()) {
                byName.computeIfAbsent(t.name(), k -> new ArrayList<>(1)).add(t.id());
            }
        }
    }

    /** Parses base BTF (vmlinux's). */
    public static Btf parse(byte[] bytes) throws BtfException {
        return parse(bytes, null);
    }

    /** Parses split BTF on top of {@code base}, or base BTF when base is null. */
    public static Btf parse(byte[] bytes, Btf base) throws BtfException {
        if (bytes.length < HEADER_MIN) {
            throw new BtfException(0, bytes.length + " bytes, shorter than a BTF header");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int magic = Short.toUnsignedInt(b.getShort(0));
        if (magic != BTF_MAGIC) {
            b.order(ByteOrder.BIG_ENDIAN);
            if (Short.toUnsignedInt(b.getShort(0)) != BTF_MAGIC) {
                throw new BtfException(0, String.format("magic 0x%04x, not BTF's 0xeb9f", magic));
            }
        }
        long hdrLen = Integer.toUnsignedLong(b.getInt(4));
        long typeOff = Integer.toUnsignedLong(b.getInt(8));
        long typeLen = Integer.toUnsignedLong(b.getInt(12));
        long strOff = Integer.toUnsignedLong(b.getInt(16));
        long strLen = Integer.toUnsignedLong(b.getInt(20));
        if (hdrLen < HEADER_MIN || hdrLen > bytes.length) {
            throw new BtfException(4, "hdr_len " + hdrLen + " outside the " + bytes.length + " bytes");
        }
        long typeStart = hdrLen + typeOff;
        long strStart = hdrLen + strOff;
        if (typeStart + typeLen > bytes.length || strStart + strLen > bytes.length) {
            throw new BtfException(8, "type or string section runs past the " + bytes.length + " bytes");
        }
        Strings strings = new Strings(bytes, (int) strStart, (int) strLen, base);
        int firstId = base == null ? 1 : base.nextId();
        List<BtfType> out = new ArrayList<>();
        int pos = (int) typeStart;
        int end = (int) (typeStart + typeLen);
        int id = firstId;
        while (pos < end) {
            if (out.size() >= MAX_TYPES) {
                throw new BtfException(pos, "more than " + MAX_TYPES + " types");
            }
            if (end - pos < TYPE_HEADER) {
                throw new BtfException(pos, "type " + id + " cut off");
            }
            int nameOff = b.getInt(pos);
            int info = b.getInt(pos + 4);
            int sizeOrType = b.getInt(pos + 8);
            int vlen = info & 0xffff;
            int kind = (info >>> 24) & 0x1f;
            boolean kindFlag = (info >>> 31) != 0;
            int data = pos + TYPE_HEADER;
            int extra = extraBytes(kind, vlen, pos);
            if (extra > end - data) {
                throw new BtfException(pos, "type " + id + " (kind " + kind + ") needs " + extra + " bytes, "
                        + (end - data) + " remain");
            }
            List<BtfType.Member> members = List.of();
            int arrayElement = 0;
            int arrayLength = 0;
            if (kind == BtfType.BTF_KIND_STRUCT || kind == BtfType.BTF_KIND_UNION) {
                members = new ArrayList<>(vlen);
                for (int i = 0; i < vlen; i++) {
                    int m = data + 12 * i;
                    int off = b.getInt(m + 8);
                    // With kind_flag, the offset word holds the bitfield size in its top 8 bits.
                    long bitOffset = kindFlag ? off & 0xffffff : Integer.toUnsignedLong(off);
                    int bitfield = kindFlag ? off >>> 24 : 0;
                    members.add(new BtfType.Member(strings.at(b.getInt(m), m), b.getInt(m + 4), bitOffset, bitfield));
                }
            } else if (kind == BtfType.BTF_KIND_ARRAY) {
                arrayElement = b.getInt(data);
                arrayLength = b.getInt(data + 8);
            }
            out.add(new BtfType(id, kind, strings.at(nameOff, pos), sizeOrType, members, arrayElement, arrayLength));
            pos = data + extra;
            id++;
        }
        return new Btf(base, firstId, out, strings);
    }

    private static int extraBytes(int kind, int vlen, int pos) throws BtfException {
        switch (kind) {
            case BtfType.BTF_KIND_INT:
            case BtfType.BTF_KIND_VAR:
            case BtfType.BTF_KIND_DECL_TAG:
                return 4;
            case BtfType.BTF_KIND_ARRAY:
                return 12;
            case BtfType.BTF_KIND_STRUCT:
            case BtfType.BTF_KIND_UNION:
            case BtfType.BTF_KIND_DATASEC:
            case BtfType.BTF_KIND_ENUM64:
                return 12 * vlen;
            case BtfType.BTF_KIND_ENUM:
            case BtfType.BTF_KIND_FUNC_PROTO:
                return 8 * vlen;
            case BtfType.BTF_KIND_PTR:
            case BtfType.BTF_KIND_FWD:
            case BtfType.BTF_KIND_TYPEDEF:
            case BtfType.BTF_KIND_VOLATILE:
            case BtfType.BTF_KIND_CONST:
            case BtfType.BTF_KIND_RESTRICT:
            case BtfType.BTF_KIND_FUNC:
            case BtfType.BTF_KIND_FLOAT:
            case BtfType.BTF_KIND_TYPE_TAG:
                return 0;
            default:
                // The size of an unknown kind's data is unknowable, so nothing after it can be read.
                throw new BtfException(pos, "unknown BTF kind " + kind);
        }
    }

    /** The ID the next type would get: split BTF on top of this one starts there. */
    public int nextId() {
        return firstId + types.size();
    }

    /** The number of types in this blob alone (not its base). */
    public int size() {
        return types.size();
    }

    /** The type with this ID, here or in the base; ID 0 is void and has no entry. */
    public BtfType type(int id) throws BtfException {
        if (id >= firstId && id < nextId()) {
            return types.get(id - firstId);
        }
        if (id < firstId && base != null) {
            return base.type(id);
        }
        throw new BtfException(-1, "no BTF type " + id);
    }

    /** The named struct or union, looked up here first, then in the base. */
    public BtfType struct(String name) throws BtfException {
        for (Integer id : byName.getOrDefault(name, List.of())) {
            BtfType t = types.get(id - firstId);
            // A struct that is only declared in this blob is a FWD; skip to its definition.
            if (t.composite()) {
                return t;
            }
        }
        if (base != null) {
            return base.struct(name);
        }
        throw new BtfException(-1, "no struct or union " + name + " in BTF");
    }

    /** The string section, continuing the base's offsets for split BTF. */
    private static final class Strings {
        private final byte[] bytes;
        private final int start;
        private final int length;
        private final Btf base;
        private final int baseLength;

        Strings(byte[] bytes, int start, int length, Btf base) {
            this.bytes = bytes;
            this.start = start;
            this.length = length;
            this.base = base;
            this.baseLength = base == null ? 0 : base.stringsLength;
        }

        String at(int offset, int where) throws BtfException {
            long off = Integer.toUnsignedLong(offset);
            if (off < baseLength) {
                return base.string((int) off);
            }
            off -= baseLength;
            if (off >= length) {
                throw new BtfException(where, "name offset " + offset + " outside the string section");
            }
            int from = start + (int) off;
            int to = from;
            int limit = start + length;
            while (to < limit && bytes[to] != 0) {
                to++;
            }
            return new String(bytes, from, to - from, StandardCharsets.UTF_8);
        }
    }

    private String string(int offset) throws BtfException {
        return strings.at(offset, -1);
    }
}
