package io.cmdemux.observer;

import java.util.Optional;

/** The network namespace a process is in (live: /proc/PID/ns/net; a recording: what the lab wrote down). */
@FunctionalInterface
public interface PidNamespaces {
    Optional<NetnsRef> of(int pid);
}
