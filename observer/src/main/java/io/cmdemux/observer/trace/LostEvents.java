package io.cmdemux.observer.trace;

/** "CPU:%d [LOST %lu EVENTS]": the ring overwrote events before we read them (trace_pipe prints it in their place). */
public record LostEvents(int cpu, long count) implements KernelEvent {
    @Override
    public TraceHeader header() {
        return null;
    }
}
