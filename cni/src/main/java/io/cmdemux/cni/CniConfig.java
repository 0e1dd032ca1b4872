package io.cmdemux.cni;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The plugin configuration a runtime streams on stdin: the network's name and cniVersion as the
 * runtime injected them, our "rdma" and "controlSocket" keys, and prevResult.
 *
 * @param prevResult null when the runtime sent none
 * @param controlSocket the daemon's host socket (default /run/cmdemux/cmdemux.sock)
 */
record CniConfig(String cniVersion, String name, RdmaSettings rdma, Path controlSocket, JsonNode prevResult,
        JsonNode raw) {
    public static final Path DEFAULT_SOCKET = Path.of("/run/cmdemux/cmdemux.sock");

    static final ObjectMapper JSON = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64)
                            .maxDocumentLength(4L << 20).build())
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /**
     * Parses stdin: 6 when it is not one JSON object, 7 when a field we need is wrong, 1 for a version we do not speak.
     */
    static CniConfig parse(byte[] stdin) throws CniError {
        return parse(stdin, false);
    }

    /**
     * @param forDelete DEL must clean up whatever it can: settings it does not need (a bad "rdma"
     *     object, say, after an admin edited the network) are not a reason to fail it
     */
    static CniConfig parse(byte[] stdin, boolean forDelete) throws CniError {
        JsonNode n = tree(stdin);
        JsonNode v = n.get("cniVersion");
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw new CniError(CniError.INVALID_CONFIG, "the configuration has no \"cniVersion\"",
                    "the runtime injects the network's cniVersion into each plugin's configuration");
        }
        String version = v.asText();
        if (!CniVersions.supported(version)) {
            throw new CniError(CniError.INCOMPATIBLE_VERSION, "CNI version " + version + " is not supported",
                    "cmdemux-cni supports " + String.join(", ", CniVersions.SUPPORTED));
        }
        JsonNode name = n.get("name");
        if (name == null || !name.isTextual() || name.asText().isEmpty()) {
            throw new CniError(CniError.INVALID_CONFIG, "the configuration has no network \"name\"",
                    "the runtime injects the network's name into each plugin's configuration");
        }
        Path socket = DEFAULT_SOCKET;
        JsonNode s = n.get("controlSocket");
        if (s != null) {
            if (!s.isTextual() || !s.asText().startsWith("/") || s.asText().length() > 107) {
                throw new CniError(CniError.INVALID_CONFIG, "\"controlSocket\" must be an absolute path of at most 107"
                        + " bytes", "the default is " + DEFAULT_SOCKET);
            }
            socket = Path.of(s.asText());
        }
        JsonNode prev = n.get("prevResult");
        if (prev != null && prev.isNull()) {
            prev = null;
        }
        RdmaSettings rdma;
        try {
            rdma = RdmaSettings.parse(n.get("rdma"));
        } catch (CniError e) {
            if (!forDelete) {
                throw e;
            }
            rdma = RdmaSettings.defaults();
        }
        return new CniConfig(version, name.asText(), rdma, socket, prev, n);
    }

    /** The cniVersion of whatever stdin holds, for VERSION's answer and error results; null if none can be read. */
    static String versionOf(byte[] stdin) {
        try {
            JsonNode v = tree(stdin).get("cniVersion");
            return v != null && v.isTextual() && !v.asText().isEmpty() ? v.asText() : null;
        } catch (CniError e) {
            return null;
        }
    }

    private static JsonNode tree(byte[] stdin) throws CniError {
        if (stdin == null || stdin.length == 0) {
            throw new CniError(CniError.DECODE_FAILURE, "no network configuration on stdin",
                    "the runtime streams the plugin's JSON configuration on stdin");
        }
        JsonNode n;
        try {
            n = JSON.readTree(stdin);
        } catch (JsonProcessingException e) {
            throw new CniError(CniError.DECODE_FAILURE, "the network configuration is not valid JSON",
                    e.getOriginalMessage());
        } catch (IOException e) {
            throw new CniError(CniError.IO_FAILURE, "cannot read the network configuration", e.getMessage());
        }
        if (n == null || !n.isObject()) {
            throw new CniError(CniError.DECODE_FAILURE, "the network configuration is not a JSON object",
                    "stdin must hold one JSON object");
        }
        return n;
    }
}
