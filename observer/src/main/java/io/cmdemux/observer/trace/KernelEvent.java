package io.cmdemux.observer.trace;

/** One parsed trace event of the sources the observer enables. */
public sealed interface KernelEvent
        permits IcmEvent, CmaEvent, ReqProbeEvent, ProbeReturn, MadEvent, LostEvents, UnknownEvent {
    /** The header of the line, or null for a line without one ({@link LostEvents}). */
    TraceHeader header();
}
