package io.cmdemux.observer.btf;

import java.util.List;

/**
 * One entry of the BTF type section (struct btf_type and the data after it, include/uapi/linux/btf.h).
 *
 * @param sizeOrType the size in bytes for INT, STRUCT, UNION, ENUM, DATASEC, FLOAT; the referred type for PTR,
 *     TYPEDEF, VOLATILE, CONST, RESTRICT, FUNC, FUNC_PROTO, VAR, TYPE_TAG, DECL_TAG
 * @param members a struct's or union's members, otherwise empty
 * @param arrayElement for an ARRAY, its element type; otherwise 0
 * @param arrayLength for an ARRAY, its number of elements
 */
public record BtfType(int id, int kind, String name, int sizeOrType, List<Member> members, int arrayElement,
        int arrayLength) {
    // enum btf_kind in include/uapi/linux/btf.h
    public static final int BTF_KIND_INT = 1;
    public static final int BTF_KIND_PTR = 2;
    public static final int BTF_KIND_ARRAY = 3;
    public static final int BTF_KIND_STRUCT = 4;
    public static final int BTF_KIND_UNION = 5;
    public static final int BTF_KIND_ENUM = 6;
    public static final int BTF_KIND_FWD = 7;
    public static final int BTF_KIND_TYPEDEF = 8;
    public static final int BTF_KIND_VOLATILE = 9;
    public static final int BTF_KIND_CONST = 10;
    public static final int BTF_KIND_RESTRICT = 11;
    public static final int BTF_KIND_FUNC = 12;
    public static final int BTF_KIND_FUNC_PROTO = 13;
    public static final int BTF_KIND_VAR = 14;
    public static final int BTF_KIND_DATASEC = 15;
    public static final int BTF_KIND_FLOAT = 16;
    public static final int BTF_KIND_DECL_TAG = 17;
    public static final int BTF_KIND_TYPE_TAG = 18;
    public static final int BTF_KIND_ENUM64 = 19;

    public BtfType {
        members = List.copyOf(members);
    }

    /**
     * One member of a struct or union.
     *
     * @param bitOffset from the start of the containing type
     * @param bitfieldSize the width of a bitfield, 0 for an ordinary member
     */
    public record Member(String name, int type, long bitOffset, int bitfieldSize) {}

    public boolean composite() {
        return kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION;
    }

    /** A kind that only qualifies or renames the type it refers to. */
    public boolean transparent() {
        return kind == BTF_KIND_TYPEDEF || kind == BTF_KIND_VOLATILE || kind == BTF_KIND_CONST
                || kind == BTF_KIND_RESTRICT || kind == BTF_KIND_TYPE_TAG;
    }
}
