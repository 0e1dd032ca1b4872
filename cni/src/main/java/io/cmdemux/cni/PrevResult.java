package io.cmdemux.cni;

import com.fasterxml.jackson.databind.JsonNode;
import io.cmdemux.netdev.InetAddresses;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The sandbox interfaces of a prevResult and their addresses. Reads the 0.4.0 form (ips with
 * "version") and the 1.x form alike; only the fields a chained plugin needs are read, the rest is
 * passed on untouched.
 */
final class PrevResult {
    private PrevResult() {}

    /**
     * The interfaces with a "sandbox" (those inside the pod's namespace), each with the IPs whose
     * "interface" index points at it. IPv6 link-local addresses are left out: rdma_cm does not
     * resolve them without a scope, and no IPAM hands them out.
     */
    static List<ExpectedInterface> sandboxInterfaces(JsonNode prev) throws CniError {
        if (!prev.isObject()) {
            throw new CniError(CniError.INVALID_CONFIG, "prevResult must be an object",
                    "the runtime passes the previous plugin's result here");
        }
        JsonNode ifaces = prev.path("interfaces");
        JsonNode ips = prev.path("ips");
        if (!ifaces.isMissingNode() && !ifaces.isArray() || !ips.isMissingNode() && !ips.isArray()) {
            throw new CniError(CniError.INVALID_CONFIG, "prevResult.interfaces and prevResult.ips must be arrays",
                    "see the CNI spec's ADD result");
        }
        Map<Integer, String> sandboxByIndex = new LinkedHashMap<>();
        for (int i = 0; i < ifaces.size(); i++) {
            JsonNode f = ifaces.get(i);
            String sandbox = f.path("sandbox").asText("");
            String name = f.path("name").asText("");
            if (!sandbox.isEmpty() && !name.isEmpty()) {
                sandboxByIndex.put(i, name);
            }
        }
        Map<String, List<InetAddress>> byName = new LinkedHashMap<>();
        sandboxByIndex.values().forEach(n -> byName.putIfAbsent(n, new ArrayList<>()));
        for (JsonNode ip : ips) {
            JsonNode idx = ip.get("interface");
            String name;
            if (idx != null && idx.canConvertToInt()) {
                name = sandboxByIndex.get(idx.asInt());
            } else {
                // Without an index, an address belongs to the one sandbox interface if there is exactly one.
                name = sandboxByIndex.size() == 1 ? sandboxByIndex.values().iterator().next() : null;
            }
            if (name == null) {
                continue; // a host-side address (bridge, veth peer): not ours to check
            }
            byName.get(name).add(address(ip.path("address").asText("")));
        }
        List<ExpectedInterface> out = new ArrayList<>();
        for (Map.Entry<String, List<InetAddress>> e : byName.entrySet()) {
            out.add(new ExpectedInterface(e.getKey(), e.getValue().stream()
                    .filter(a -> !(a instanceof Inet6Address v6 && v6.isLinkLocalAddress())).toList()));
        }
        return out;
    }

    private static InetAddress address(String cidr) throws CniError {
        int slash = cidr.indexOf('/');
        String ip = slash < 0 ? cidr : cidr.substring(0, slash);
        try {
            return InetAddresses.parse(ip);
        } catch (IllegalArgumentException e) {
            throw new CniError(CniError.INVALID_CONFIG, "prevResult holds the address '" + cidr
                    + "', which is not IP/PREFIX",
                    "the previous plugin's result is malformed");
        }
    }
}
