package io.cmdemux.netdev;

import java.util.OptionalInt;

/**
 * One RTM_NEWNSID record: nsid {@code nsid} is assigned in the dumped namespace. When the dump was
 * made for a target namespace, {@code currentNsid} names the same peer as the asking namespace
 * sees it (NETNSA_CURRENT_NSID), -1 when the asker has no nsid for it (including the asker itself).
 */
public record NsidEntry(int nsid, OptionalInt currentNsid) {}
