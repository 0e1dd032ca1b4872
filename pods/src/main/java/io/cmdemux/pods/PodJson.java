package io.cmdemux.pods;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cmdemux.gid.Gid;
import io.cmdemux.gid.GidType;
import io.cmdemux.netdev.InetAddresses;
import java.util.ArrayList;
import java.util.List;

/**
 * The one JSON form of a registration: in POD_REGISTER, in the daemon's state files, in QUERY
 * pods answers and in the CLI's --json output. Parsing checks every field's type and range and
 * fails with an IllegalArgumentException naming the field; nothing read is trusted beyond that.
 */
public final class PodJson {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    /** Far above any real value; bounds what a bad file or message can make us hold. */
    private static final int MAX_TEXT = 4096;
    private static final int MAX_ITEMS = 64;

    private PodJson() {}

    public static ObjectNode keyJson(PodKey k) {
        ObjectNode o = F.objectNode();
        o.put("network", k.network());
        o.put("containerId", k.containerId());
        o.put("ifname", k.ifname());
        return o;
    }

    public static PodKey key(JsonNode o) {
        return new PodKey(text(o, "network", true), text(o, "containerId", true), text(o, "ifname", true));
    }

    public static ObjectNode json(PodRegistration r) {
        ObjectNode o = keyJson(r.key());
        ObjectNode ns = o.putObject("netns");
        ns.put("path", r.netnsPath());
        ns.put("inode", r.netnsInode());
        o.set("pod", podJson(r.pod()));
        o.put("gidType", r.gidType().text());
        ArrayNode as = o.putArray("attachments");
        for (Attachment a : r.attachments()) {
            as.add(attachmentJson(a));
        }
        return o;
    }

    public static ObjectNode podJson(PodRef p) {
        ObjectNode o = F.objectNode();
        putNullable(o, "namespace", p.namespace());
        putNullable(o, "name", p.name());
        putNullable(o, "uid", p.uid());
        return o;
    }

    public static ObjectNode attachmentJson(Attachment a) {
        ObjectNode o = F.objectNode();
        o.put("ifname", a.ifname());
        o.put("ifindex", a.ifindex());
        o.put("device", a.device());
        o.put("port", a.port());
        o.put("linkLayer", a.linkLayer());
        ArrayNode gs = o.putArray("gids");
        for (GidAssignment g : a.gids()) {
            ObjectNode go = gs.addObject();
            go.put("ip", InetAddresses.toText(g.ip()));
            go.put("index", g.index());
            go.put("gid", g.gid().toString());
            go.put("type", g.type().text());
        }
        if (a.pkey() < 0) {
            o.putNull("pkey");
            o.putNull("pkeyIndex");
        } else {
            o.put("pkey", String.format("0x%04x", a.pkey()));
            o.put("pkeyIndex", a.pkeyIndex());
        }
        return o;
    }

    public static PodRegistration registration(JsonNode o) {
        if (o == null || !o.isObject()) {
            throw new IllegalArgumentException("a registration must be a JSON object");
        }
        PodKey key = key(o);
        JsonNode ns = o.path("netns");
        if (!ns.isObject()) {
            throw new IllegalArgumentException("\"netns\" must be an object {\"path\", \"inode\"}");
        }
        String path = text(ns, "path", true);
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("\"netns.path\" must be an absolute path");
        }
        JsonNode inode = ns.path("inode");
        if (!inode.canConvertToLong() || inode.asLong() <= 0) {
            throw new IllegalArgumentException("\"netns.inode\" must be a positive number");
        }
        JsonNode p = o.path("pod");
        PodRef pod = p.isObject() ? new PodRef(text(p, "namespace", false), text(p, "name", false),
                text(p, "uid", false)) : PodRef.NONE;
        GidType type = o.has("gidType") ? GidType.parse(text(o, "gidType", true), true) : GidType.ROCE_V2;
        List<Attachment> attachments = new ArrayList<>();
        JsonNode as = o.path("attachments");
        if (!as.isMissingNode() && !as.isArray()) {
            throw new IllegalArgumentException("\"attachments\" must be an array");
        }
        if (as.size() > MAX_ITEMS) {
            throw new IllegalArgumentException("more than " + MAX_ITEMS + " attachments");
        }
        for (JsonNode a : as) {
            attachments.add(attachment(a));
        }
        return new PodRegistration(key, path, inode.asLong(), pod, type, attachments);
    }

    private static Attachment attachment(JsonNode a) {
        if (!a.isObject()) {
            throw new IllegalArgumentException("each attachment must be an object");
        }
        List<GidAssignment> gids = new ArrayList<>();
        JsonNode gs = a.path("gids");
        if (!gs.isMissingNode() && !gs.isArray() || gs.size() > MAX_ITEMS) {
            throw new IllegalArgumentException("\"gids\" must be an array of at most " + MAX_ITEMS);
        }
        for (JsonNode g : gs) {
            gids.add(new GidAssignment(InetAddresses.parse(text(g, "ip", true)), number(g, "index", 0, 0xffff),
                    Gid.parse(text(g, "gid", true)), GidType.parse(text(g, "type", true), true)));
        }
        int pkey = -1;
        int pkeyIndex = -1;
        if (a.hasNonNull("pkey")) {
            String t = text(a, "pkey", true);
            try {
                pkey = Integer.decode(t);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("\"pkey\" must be a 16-bit number such as 0x8001, not " + t);
            }
            if (pkey < 0 || pkey > 0xffff) {
                throw new IllegalArgumentException("\"pkey\" must be a 16-bit number");
            }
            pkeyIndex = number(a, "pkeyIndex", 0, 0xffff);
        }
        String layer = text(a, "linkLayer", true);
        if (!layer.equals(Attachment.ETHERNET) && !layer.equals(Attachment.INFINIBAND)) {
            throw new IllegalArgumentException("\"linkLayer\" must be ethernet or infiniband");
        }
        return new Attachment(text(a, "ifname", true), number(a, "ifindex", 0, Integer.MAX_VALUE),
                text(a, "device", true), number(a, "port", 1, 255), layer, gids, pkey, pkeyIndex);
    }

    private static String text(JsonNode o, String field, boolean required) {
        JsonNode v = o.get(field);
        if (v == null || v.isNull()) {
            if (required) {
                throw new IllegalArgumentException("\"" + field + "\" is required");
            }
            return null;
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException("\"" + field + "\" must be a string");
        }
        String s = v.asText();
        if (s.length() > MAX_TEXT || (required && s.isEmpty())) {
            throw new IllegalArgumentException("\"" + field + "\" must be 1 to " + MAX_TEXT + " characters");
        }
        return s;
    }

    private static int number(JsonNode o, String field, int min, int max) {
        JsonNode v = o.get(field);
        if (v == null || !v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < min || v.asInt() > max) {
            throw new IllegalArgumentException("\"" + field + "\" must be a whole number from " + min + " to " + max);
        }
        return v.asInt();
    }

    private static void putNullable(ObjectNode o, String field, String value) {
        if (value == null) {
            o.putNull(field);
        } else {
            o.put(field, value);
        }
    }
}
