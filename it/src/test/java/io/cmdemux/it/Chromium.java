package io.cmdemux.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.namespaces.testkit.Host;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Debian's chromium, headless, with a fresh profile, driven over the DevTools protocol (CDP) with
 * the JDK's own HTTP and WebSocket clients. The flags are the ones known to work on these
 * offline hosts: without the background-networking ones Chromium keeps calling out.
 */
final class Chromium implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final List<String> FLAGS = List.of("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update", "--disable-sync");

    private final Process process;
    private final int port;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Chromium(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static Chromium start(Path profile, Path log) throws IOException, InterruptedException {
        Host.requireCommand("chromium", "chromium");
        Files.createDirectories(profile);
        List<String> cmd = new ArrayList<>(List.of("chromium"));
        cmd.addAll(FLAGS);
        cmd.addAll(List.of("--user-data-dir=" + profile, "--remote-debugging-port=0", "--window-size=1400,2000",
                "about:blank"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Path active = profile.resolve("DevToolsActivePort");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (Files.isRegularFile(active)) {
                List<String> lines = Files.readAllLines(active);
                if (!lines.isEmpty() && !lines.get(0).isBlank()) {
                    return new Chromium(p, Integer.parseInt(lines.get(0).trim()));
                }
            }
            if (!p.isAlive()) {
                throw new AssertionError("chromium exited " + p.exitValue() + ":\n" + Files.readString(log));
            }
            Thread.sleep(100);
        }
        p.destroyForcibly();
        throw new AssertionError("chromium did not open its DevTools port within 30 s:\n" + Files.readString(log));
    }

    /** A new tab showing {@code url}, loaded. */
    Tab open(String url) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/new?"
                + URLEncoder.encode(url, StandardCharsets.UTF_8))).PUT(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new AssertionError("DevTools /json/new: " + r.statusCode() + " " + r.body());
        }
        String ws = JSON.readTree(r.body()).get("webSocketDebuggerUrl").asText();
        Tab.Receiver receiver = new Tab.Receiver();
        Tab t = new Tab(http.newWebSocketBuilder().buildAsync(URI.create(ws), receiver)
                .get(10, TimeUnit.SECONDS), receiver);
        t.awaitLoaded(url);
        return t;
    }

    @Override
    public void close() throws InterruptedException {
        // Chromium's renderer and GPU processes are children of the one we started.
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }

    /** One tab: CDP commands by id, their answers matched back. */
    static final class Tab implements AutoCloseable {
        private final WebSocket ws;
        private final Receiver receiver;
        private final AtomicInteger ids = new AtomicInteger();

        private Tab(WebSocket ws, Receiver receiver) {
            this.ws = ws;
            this.receiver = receiver;
        }

        JsonNode call(String method, Map<String, Object> params) throws Exception {
            int id = ids.incrementAndGet();
            ObjectNode msg = JSON.createObjectNode();
            msg.put("id", id);
            msg.put("method", method);
            msg.set("params", JSON.valueToTree(params));
            CompletableFuture<JsonNode> f = new CompletableFuture<>();
            receiver.pending.put(id, f);
            synchronized (this) {
                ws.sendText(JSON.writeValueAsString(msg), true).get(10, TimeUnit.SECONDS);
            }
            JsonNode answer = f.get(30, TimeUnit.SECONDS);
            if (answer.has("error")) {
                throw new IllegalStateException(method + ": " + answer.get("error"));
            }
            return answer.get("result");
        }

        /** Runs {@code js} in the page and returns its value (JSON-serialisable). */
        JsonNode eval(String js) throws Exception {
            JsonNode r = call("Runtime.evaluate", Map.of("expression", js, "returnByValue", true));
            if (r.has("exceptionDetails")) {
                throw new IllegalStateException("page script failed: " + r.get("exceptionDetails"));
            }
            return r.path("result").path("value");
        }

        /** Like {@link #eval}, retried while the page reloads itself (its meta refresh may fire mid-call). */
        JsonNode evalSteady(String js) throws Exception {
            IllegalStateException last = null;
            for (int i = 0; i < 20; i++) {
                try {
                    if (eval("document.readyState").asText().equals("complete")) {
                        return eval(js);
                    }
                } catch (IllegalStateException e) {
                    last = e;
                }
                Thread.sleep(100);
            }
            throw new AssertionError("the page never settled", last);
        }

        void navigate(String url) throws Exception {
            call("Page.navigate", Map.of("url", url));
            awaitLoaded(url);
        }

        void awaitLoaded(String url) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline) {
                try {
                    JsonNode v = eval("[location.href, document.readyState]");
                    if (v.get(0).asText().equals(url) && v.get(1).asText().equals("complete")) {
                        return;
                    }
                } catch (IllegalStateException e) {
                    // the document is being replaced
                }
                Thread.sleep(100);
            }
            throw new AssertionError(url + " did not load within 30 s");
        }

        void screenshot(Path png) throws Exception {
            JsonNode r = call("Page.captureScreenshot", Map.of("format", "png", "captureBeyondViewport", true));
            Files.createDirectories(png.getParent());
            Files.write(png, Base64.getDecoder().decode(r.get("data").asText()));
        }

        @Override
        public void close() {
            ws.abort();
        }

        /** Collects text frames into messages and hands answers to their callers; events are not needed here. */
        static final class Receiver implements WebSocket.Listener {
            final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
            private final StringBuilder buf = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean lastPart) {
                buf.append(data);
                if (lastPart) {
                    String text = buf.toString();
                    buf.setLength(0);
                    try {
                        JsonNode m = JSON.readTree(text);
                        if (m.has("id")) {
                            CompletableFuture<JsonNode> f = pending.remove(m.get("id").asInt());
                            if (f != null) {
                                f.complete(m);
                            }
                        }
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
                webSocket.request(1);
                return null;
            }
        }
    }
}
