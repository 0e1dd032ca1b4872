package io.cmdemux.it.cni;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A CNI runtime as the spec describes one (SPEC.md section 3), for driving the real plugins from a
 * test: each plugin of a conflist is found by its type in CNI_PATH and executed with the CNI_*
 * environment and its own configuration on stdin, with the network's name and cniVersion injected
 * and, from the second plugin on, the previous plugin's result as prevResult. DEL runs the list in
 * reverse and CHECK in order, both with the cached result of the ADD as every plugin's prevResult.
 */
final class CniRuntime {
    static final ObjectMapper JSON = new ObjectMapper();

    private final List<Path> path;

    CniRuntime(List<Path> path) {
        this.path = List.copyOf(path);
    }

    /** The per-attachment parameters: CNI_CONTAINERID, CNI_NETNS, CNI_IFNAME, CNI_ARGS. */
    record Attachment(String containerId, String netns, String ifname, String args) {}

    /** One plugin execution. */
    record Invocation(String type, String command, int exit, String stdout, String stderr) {
        JsonNode json() {
            try {
                return JSON.readTree(stdout);
            } catch (IOException e) {
                throw new AssertionError(type + " " + command + " printed no JSON: " + stdout
                        + "\nstderr: " + stderr, e);
            }
        }

        /** The CNI error code of a failed execution. */
        int code() {
            return json().path("code").asInt(-1);
        }

        @Override
        public String toString() {
            return type + " " + command + " exit " + exit + "\nstdout: " + stdout + "\nstderr: " + stderr;
        }
    }

    /** An ADD of the whole list: stops at the first failure, as runtimes do. */
    record AddResult(List<Invocation> invocations, JsonNode result) {
        boolean ok() {
            return result != null;
        }

        Invocation last() {
            return invocations.get(invocations.size() - 1);
        }

        Invocation of(String type) {
            return invocations.stream().filter(i -> i.type().equals(type)).findFirst().orElseThrow();
        }
    }

    AddResult add(JsonNode conflist, Attachment a) {
        List<Invocation> out = new ArrayList<>();
        JsonNode prev = null;
        for (JsonNode plugin : conflist.get("plugins")) {
            Invocation i = exec(plugin.get("type").asText(), "ADD", a, derive(conflist, plugin, prev));
            out.add(i);
            if (i.exit() != 0) {
                return new AddResult(out, null);
            }
            prev = i.json();
        }
        return new AddResult(out, prev);
    }

    /** DEL in reverse order; {@code cached} is the ADD's result, or null when the runtime has none. */
    List<Invocation> del(JsonNode conflist, Attachment a, JsonNode cached) {
        List<JsonNode> plugins = new ArrayList<>();
        conflist.get("plugins").forEach(plugins::add);
        List<Invocation> out = new ArrayList<>();
        for (int i = plugins.size() - 1; i >= 0; i--) {
            out.add(exec(plugins.get(i).get("type").asText(), "DEL", a, derive(conflist, plugins.get(i), cached)));
        }
        return out;
    }

    /** CHECK of every plugin in order, each fed the cached result; all run, so that each one's answer can be seen. */
    List<Invocation> check(JsonNode conflist, Attachment a, JsonNode cached) {
        List<Invocation> out = new ArrayList<>();
        for (JsonNode plugin : conflist.get("plugins")) {
            out.add(exec(plugin.get("type").asText(), "CHECK", a, derive(conflist, plugin, cached)));
        }
        return out;
    }

    /** The plugin's own configuration with name, cniVersion and (when given) prevResult injected. */
    static ObjectNode derive(JsonNode conflist, JsonNode plugin, JsonNode prev) {
        ObjectNode c = plugin.deepCopy();
        c.put("name", conflist.get("name").asText());
        c.put("cniVersion", conflist.get("cniVersion").asText());
        if (prev != null) {
            c.set("prevResult", prev);
        }
        return c;
    }

    Invocation exec(String type, String command, Attachment a, JsonNode conf) {
        try {
            return exec(type, command, a, JSON.writeValueAsBytes(conf));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Runs one plugin with the environment a runtime gives it; any CNI_* variable may be left out with a null. */
    Invocation exec(String type, String command, Attachment a, byte[] stdin) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CNI_COMMAND", command);
        if (a != null) {
            env.put("CNI_CONTAINERID", a.containerId());
            env.put("CNI_NETNS", a.netns());
            env.put("CNI_IFNAME", a.ifname());
            env.put("CNI_ARGS", a.args());
        }
        return execWith(type, env, stdin);
    }

    Invocation execWith(String type, Map<String, String> cniEnv, byte[] stdin) {
        Path exe = find(type);
        try {
            Path in = Files.createTempFile("cni-stdin", ".json");
            Path out = Files.createTempFile("cni-stdout", ".json");
            Path err = Files.createTempFile("cni-stderr", ".txt");
            try {
                Files.write(in, stdin);
                ProcessBuilder pb = new ProcessBuilder(exe.toString()).redirectInput(in.toFile())
                        .redirectOutput(out.toFile()).redirectError(err.toFile());
                Map<String, String> env = pb.environment();
                env.keySet().removeIf(k -> !k.equals("PATH"));
                cniEnv.forEach((k, v) -> {
                    if (v != null) {
                        env.put(k, v);
                    }
                });
                env.put("CNI_PATH", String.join(":", path.stream().map(Path::toString).toList()));
                Process p = pb.start();
                if (!p.waitFor(120, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new AssertionError(type + " " + cniEnv.get("CNI_COMMAND") + " did not finish within 120 s");
                }
                return new Invocation(type, cniEnv.get("CNI_COMMAND"), p.exitValue(),
                        Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
            } finally {
                Files.deleteIfExists(in);
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new AssertionError("cannot run " + exe + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private Path find(String type) {
        for (Path dir : path) {
            Path p = dir.resolve(type);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        throw new AssertionError("no plugin " + type + " in " + path);
    }

    /** {"cniVersion", "name", "plugins": [...]} */
    static ObjectNode conflist(String cniVersion, String name, JsonNode... plugins) {
        ObjectNode c = JSON.createObjectNode();
        c.put("cniVersion", cniVersion);
        c.put("name", name);
        ArrayNode ps = c.putArray("plugins");
        for (JsonNode p : plugins) {
            ps.add(p);
        }
        return c;
    }
}
