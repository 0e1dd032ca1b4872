package io.cmdemux.namespaces;

import io.cmdemux.netdev.NativeException;
import io.cmdemux.netdev.NetnsHandle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The only place where cmdemux calls setns. Its own platform threads enter a namespace, run one
 * task, and return to the namespace they started in before taking the next task. A socket opened
 * by a task stays bound to that namespace after the thread has left it.
 */
public final class NetnsExecutor implements AutoCloseable {
    /** Work done inside a namespace. */
    @FunctionalInterface
    public interface Task<T> {
        T run() throws IOException;
    }

    private static final AtomicInteger POOLS = new AtomicInteger();
    private final ThreadPoolExecutor pool;
    private final ThreadLocal<NetnsHandle> home = new ThreadLocal<>();

    public NetnsExecutor(int threads) {
        int pool = POOLS.incrementAndGet();
        AtomicInteger n = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            // Platform threads only: a virtual thread may hop carriers, and setns binds the carrier.
            Thread t = new Thread(r, "cmdemux-netns-" + pool + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.pool.allowCoreThreadTimeOut(true);
    }

    /** Runs the task inside the namespace that {@code nsPath} opens, and waits for it. */
    public <T> T call(String nsPath, Task<T> task) throws IOException {
        try {
            return submit(nsPath, task).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while working in " + nsPath, e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof UncheckedIOException u) {
                throw u.getCause();
            }
            if (c instanceof IOException io) {
                throw io;
            }
            if (c instanceof RuntimeException re) {
                throw re;
            }
            throw new IOException("task in " + nsPath + " failed", c);
        }
    }

    public <T> CompletableFuture<T> submit(String nsPath, Task<T> task) {
        CompletableFuture<T> f = new CompletableFuture<>();
        pool.execute(() -> {
            try {
                f.complete(runIn(nsPath, task));
            } catch (IOException e) {
                f.completeExceptionally(e);
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            } catch (StrandedThread e) {
                f.completeExceptionally(e);
                throw e; // an Error ends the worker; the pool starts a fresh one in our own namespace
            }
        });
        return f;
    }

    private <T> T runIn(String nsPath, Task<T> task) throws IOException {
        NetnsHandle back = home.get();
        if (back == null) {
            back = NetnsHandle.open("/proc/thread-self/ns/net");
            home.set(back);
        }
        try (NetnsHandle target = NetnsHandle.open(nsPath)) {
            boolean move = target.ino() != back.ino() || target.dev() != back.dev();
            if (move) {
                target.enter();
            }
            try {
                return task.run();
            } finally {
                if (move) {
                    returnHome(back);
                }
            }
        }
    }

    private static void returnHome(NetnsHandle back) {
        try {
            back.enter();
        } catch (NativeException e) {
            // A thread stranded in a foreign namespace must not run another task: kill it.
            throw new StrandedThread("cannot return to " + back + ": " + e.getMessage() + "; retiring thread", e);
        }
    }

    private static final class StrandedThread extends Error {
        StrandedThread(String message, Throwable cause) {
            super(message, cause);
        }
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
