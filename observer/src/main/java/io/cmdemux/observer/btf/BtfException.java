package io.cmdemux.observer.btf;

/** BTF bytes that do not parse, or a member path that the types do not have. */
public final class BtfException extends Exception {
    private static final long serialVersionUID = 1L;
    private final long offset;

    public BtfException(long offset, String reason) {
        super(offset < 0 ? reason : "BTF byte " + offset + ": " + reason);
        this.offset = offset;
    }

    /** The byte of the BTF data where parsing failed, or -1 for a lookup error. */
    public long offset() {
        return offset;
    }
}
