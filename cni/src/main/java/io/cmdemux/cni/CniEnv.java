package io.cmdemux.cni;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The CNI_* environment of one invocation, checked the way the spec states it: the variables the
 * command needs are present, the container ID and interface name are well formed. Anything else
 * is error 4 naming the variables.
 *
 * @param netns CNI_NETNS, or null (allowed for DEL)
 * @param args CNI_ARGS, "" when unset
 */
record CniEnv(CniOperation command, String containerId, String netns, String ifname, String args, String path) {
    /** "Must start with an alphanumeric character, optionally followed by ... alphanumeric, _, . or -". */
    private static final Pattern CONTAINER_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");

    static CniEnv parse(Map<String, String> env) throws CniError {
        String cmd = env.get("CNI_COMMAND");
        if (cmd == null || cmd.isEmpty()) {
            throw new CniError(CniError.INVALID_ENVIRONMENT, "CNI_COMMAND is not set",
                    "set CNI_COMMAND to ADD, DEL, CHECK, STATUS, GC or VERSION");
        }
        CniOperation c = CniOperation.of(cmd);
        if (c == null) {
            throw new CniError(CniError.INVALID_ENVIRONMENT, "CNI_COMMAND '" + cmd + "' is not a CNI operation",
                    "CNI_COMMAND must be ADD, DEL, CHECK, STATUS, GC or VERSION");
        }
        String id = blankToNull(env.get("CNI_CONTAINERID"));
        String netns = blankToNull(env.get("CNI_NETNS"));
        String ifname = blankToNull(env.get("CNI_IFNAME"));
        List<String> missing = new ArrayList<>();
        if (c.needsContainerId && id == null) {
            missing.add("CNI_CONTAINERID");
        }
        if (c.needsNetns && netns == null) {
            missing.add("CNI_NETNS");
        }
        if (c.needsIfname && ifname == null) {
            missing.add("CNI_IFNAME");
        }
        if (!missing.isEmpty()) {
            throw new CniError(CniError.INVALID_ENVIRONMENT, String.join(", ", missing)
                    + (missing.size() == 1 ? " is" : " are") + " not set",
                    "CNI_COMMAND=" + cmd + " needs CNI_CONTAINERID, " + (c.needsNetns ? "CNI_NETNS, " : "")
                            + "CNI_IFNAME");
        }
        if (id != null && !CONTAINER_ID.matcher(id).matches()) {
            throw new CniError(CniError.INVALID_ENVIRONMENT, "CNI_CONTAINERID '" + id + "' is malformed",
                    "a container ID starts with a letter or digit, followed by letters, digits, '_', '.' or '-'");
        }
        if (ifname != null) {
            String why = ifnameProblem(ifname);
            if (why != null) {
                throw new CniError(CniError.INVALID_ENVIRONMENT,
                        "CNI_IFNAME '" + ifname + "' is not a valid interface name", why);
            }
        }
        if (netns != null && c.needsNetns && !netns.startsWith("/")) {
            throw new CniError(CniError.INVALID_ENVIRONMENT, "CNI_NETNS '" + netns + "' is not an absolute path",
                    "CNI_NETNS names the pod's network namespace file, e.g. /run/netns/cni-...");
        }
        return new CniEnv(c, id, netns, ifname, env.getOrDefault("CNI_ARGS", ""), env.getOrDefault("CNI_PATH", ""));
    }

    /** Linux's dev_valid_name, which the spec restates: 1-15 bytes, not . or .., no '/', ':' or white space. */
    static String ifnameProblem(String n) {
        if (n.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 15) {
            return "an interface name has at most 15 bytes (IFNAMSIZ - 1)";
        }
        if (n.equals(".") || n.equals("..")) {
            return "an interface name cannot be . or ..";
        }
        for (int i = 0; i < n.length(); i++) {
            char ch = n.charAt(i);
            if (ch == '/' || ch == ':' || Character.isWhitespace(ch)) {
                return "an interface name cannot hold '/', ':' or white space";
            }
        }
        return null;
    }

    private static String blankToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
