package io.cmdemux.cli;

/** The host cannot do what was asked: not root, no such file, a kernel feature missing. Exit 3. */
public final class EnvironmentException extends RuntimeException {
    public EnvironmentException(String message, Throwable cause) {
        super(message, cause);
    }

    public EnvironmentException(String message) {
        super(message);
    }
}
