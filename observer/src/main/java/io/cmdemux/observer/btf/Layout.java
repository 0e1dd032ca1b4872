package io.cmdemux.observer.btf;

/**
 * Member offsets by name path, as C spells them: {@code param.req_rcvd.port} in {@code struct ib_cm_event}. A
 * name is found through anonymous structs and unions too, as C lets a reader name their members directly.
 */
public final class Layout {
    /** BTF has no pointer size; every kernel the observer runs on is LP64 (x86_64, arm64). */
    public static final int POINTER_SIZE = 8;
    private static final int MAX_DEPTH = 32;

    private final Btf btf;

    public Layout(Btf btf) {
        this.btf = btf;
    }

    public Btf btf() {
        return btf;
    }

    /** The member at {@code path} (dot-separated) of {@code struct}. */
    public Field field(String struct, String path) throws BtfException {
        return field(btf.struct(struct), path);
    }

    public Field field(BtfType struct, String path) throws BtfException {
        BtfType at = struct;
        long bits = 0;
        BtfType.Member last = null;
        for (String name : path.split("\\.")) {
            at = strip(at);
            if (!at.composite()) {
                throw new BtfException(-1, "cannot take member " + name + " of " + describe(at) + " (path " + path
                        + " in " + struct.name() + ")");
            }
            Found f = find(at, name, 0, 0);
            if (f == null) {
                throw new BtfException(-1, describe(at) + " has no member " + name + " (path " + path + ")");
            }
            bits += f.bits;
            last = f.member;
            at = btf.type(f.member.type());
        }
        BtfType type = strip(at);
        long byteOffset = bits / 8;
        int shift = (int) (bits % 8);
        return new Field(byteOffset, last.bitfieldSize(), shift, type, sizeOf(type));
    }

    /** The struct a pointer field points to, with qualifiers and typedefs taken off. */
    public BtfType target(Field pointer) throws BtfException {
        if (!pointer.pointer()) {
            throw new BtfException(-1, "not a pointer: " + describe(pointer.type()));
        }
        return strip(btf.type(pointer.type().sizeOrType()));
    }

    private record Found(BtfType.Member member, long bits) {}

    private Found find(BtfType composite, String name, long base, int depth) throws BtfException {
        if (depth > MAX_DEPTH) {
            throw new BtfException(-1, "anonymous members nested deeper than " + MAX_DEPTH);
        }
        for (BtfType.Member m : composite.members()) {
            if (m.name().equals(name)) {
                return new Found(m, base + m.bitOffset());
            }
        }
        for (BtfType.Member m : composite.members()) {
            if (m.name().isEmpty()) {
                BtfType inner = strip(btf.type(m.type()));
                if (inner.composite()) {
                    Found f = find(inner, name, base + m.bitOffset(), depth + 1);
                    if (f != null) {
                        return f;
                    }
                }
            }
        }
        return null;
    }

    /** Takes off typedefs, const, volatile, restrict and type tags. */
    public BtfType strip(BtfType t) throws BtfException {
        BtfType at = t;
        for (int i = 0; at.transparent(); i++) {
            if (i > MAX_DEPTH) {
                throw new BtfException(-1, "a chain of typedefs and qualifiers longer than " + MAX_DEPTH);
            }
            at = btf.type(at.sizeOrType());
        }
        return at;
    }

    public long sizeOf(BtfType t) throws BtfException {
        BtfType at = strip(t);
        switch (at.kind()) {
            case BtfType.BTF_KIND_PTR:
                return POINTER_SIZE;
            case BtfType.BTF_KIND_ARRAY:
                return at.arrayLength() * sizeOf(btf.type(at.arrayElement()));
            case BtfType.BTF_KIND_INT:
            case BtfType.BTF_KIND_STRUCT:
            case BtfType.BTF_KIND_UNION:
            case BtfType.BTF_KIND_ENUM:
            case BtfType.BTF_KIND_ENUM64:
            case BtfType.BTF_KIND_FLOAT:
                return Integer.toUnsignedLong(at.sizeOrType());
            default:
                throw new BtfException(-1, "no size for " + describe(at));
        }
    }

    private static String describe(BtfType t) {
        return "type " + t.id() + " (kind " + t.kind() + (t.name().isEmpty() ? "" : " " + t.name()) + ")";
    }
}
