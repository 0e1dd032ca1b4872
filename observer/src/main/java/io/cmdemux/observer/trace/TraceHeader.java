package io.cmdemux.observer.trace;

/**
 * The part of an ftrace output line before the event's own text (print_trace_fmt in kernel/trace/trace.c,
 * "TASK-PID [CPU] FLAGS TIMESTAMP: EVENT: ").
 *
 * @param timestampNanos the trace clock's time (local by default: nanoseconds since boot), printed as seconds
 *     with microseconds
 */
public record TraceHeader(String task, int pid, int cpu, long timestampNanos, String event) {}
