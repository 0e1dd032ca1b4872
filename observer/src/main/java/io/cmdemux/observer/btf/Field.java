package io.cmdemux.observer.btf;

/**
 * Where a member lies in its outermost struct, found through a path of member names.
 *
 * @param byteOffset from the start of the outermost struct
 * @param bitfieldSize the width of a bitfield member, 0 otherwise
 * @param bitShift for a bitfield, its bit offset within the byte at byteOffset
 * @param type the member's type with typedefs and qualifiers taken off
 * @param size the member's size in bytes (for a bitfield, of its declared type)
 */
public record Field(long byteOffset, int bitfieldSize, int bitShift, BtfType type, long size) {
    public boolean pointer() {
        return type.kind() == BtfType.BTF_KIND_PTR;
    }
}
