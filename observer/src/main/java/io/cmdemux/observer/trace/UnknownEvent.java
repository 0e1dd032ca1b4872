package io.cmdemux.observer.trace;

/** A well-formed event line of an event the observer does not use: counted, not an error. */
public record UnknownEvent(TraceHeader header, String body) implements KernelEvent {}
