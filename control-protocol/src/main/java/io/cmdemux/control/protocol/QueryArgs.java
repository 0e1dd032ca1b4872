package io.cmdemux.control.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;

/**
 * QUERY arguments: one JSON object, parsed with limits a hostile client cannot get around
 * (depth, string, name and number lengths, duplicate keys, trailing garbage). Anything else is
 * EINVAL with the parser's reason.
 */
public final class QueryArgs {
    static final int MAX_DEPTH = 16;
    static final int MAX_STRING = 4096;
    static final int MAX_NAME = 256;
    static final int MAX_NUMBER = 64;

    public static final ObjectMapper JSON = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxNestingDepth(MAX_DEPTH)
                            .maxStringLength(MAX_STRING)
                            .maxNameLength(MAX_NAME)
                            .maxNumberLength(MAX_NUMBER)
                            .maxDocumentLength(Wire.MAX_REQUEST_FRAME)
                            .build())
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private QueryArgs() {}

    /** @param utf8 the JSON record's value, or null when the QUERY had none (an empty object then) */
    public static ObjectNode parse(byte[] utf8) throws RequestRefused {
        if (utf8 == null) {
            return JsonNodeFactory.instance.objectNode();
        }
        JsonNode n;
        try {
            n = JSON.readTree(utf8);
        } catch (JsonProcessingException e) {
            throw new RequestRefused(Wire.EINVAL, "query arguments are not acceptable JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new RequestRefused(Wire.EINVAL, "query arguments cannot be read: " + e.getMessage());
        }
        if (n == null || !n.isObject()) {
            throw new RequestRefused(Wire.EINVAL, "query arguments must be one JSON object");
        }
        return (ObjectNode) n;
    }
}
