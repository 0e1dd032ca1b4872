package io.cmdemux.ingress.wire;

/**
 * A decoded RoCEv2 frame that carries a CM MAD. {@code l2} is null for a capture without a link layer
 * (LINKTYPE_RAW). {@code icrc} is the value in the frame as rxe reads it (little-endian), 0 when the
 * frame has none; {@code icrcCheck} says whether it matches the one computed over the frame.
 */
public record RoceFrame(
        L2Header l2, L3Header l3, int udpSrcPort, Bth bth, Deth deth, Mad mad, int icrc, IcrcCheck icrcCheck) {

    /**
     * What the receiver's ICRC check finds. Anything but VALID fails rxe_icrc_check and rxe drops the
     * frame without a word, as a NIC does; a frame that ends where its ICRC would start fails it too,
     * since rxe takes the MAD's last 4 bytes for the ICRC.
     */
    public enum IcrcCheck { VALID, WRONG, MISSING }

    public RoceFrame {
        if (icrcCheck == IcrcCheck.MISSING && icrc != 0) {
            throw new IllegalArgumentException("a frame without an ICRC has no ICRC value");
        }
    }

    /** Whether the receiver accepts the frame's ICRC. */
    public boolean icrcValid() {
        return icrcCheck == IcrcCheck.VALID;
    }
}
