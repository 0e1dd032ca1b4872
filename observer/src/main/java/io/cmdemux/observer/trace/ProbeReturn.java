package io.cmdemux.observer.trace;

/** A kretprobe event "(CALLER <- FUNCTION) ret=N", as the lab records the request handlers' results. */
public record ProbeReturn(TraceHeader header, String function, long ret) implements KernelEvent {}
