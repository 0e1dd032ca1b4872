package io.cmdemux.ingress.wire;

/**
 * A decoded RoCEv2 frame that carries a CM MAD. {@code l2} is null for a capture without a link layer
 * (LINKTYPE_RAW). {@code icrc} is the value in the frame, {@code icrcValid} whether it matches the
 * one computed over the frame.
 */
public record RoceFrame(L2Header l2, L3Header l3, int udpSrcPort, Bth bth, Deth deth, Mad mad, int icrc, boolean icrcValid) {}
