package io.cmdemux.ingress.wire;

import io.cmdemux.gid.Gid;
import java.lang.reflect.RecordComponent;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where IBTA puts every CM field, written out from the spec tables (Vol 1 ch. 12, Tables 106–120) as
 * include/rdma/ibta_vol1_c12.h transcribes them: Byte[Bit] relative to the CM data, bit 0 being the
 * most significant bit of the byte, and the width in bits. Tests read fields out of encoded bytes
 * with this table, so the expected positions never come from the codec under test.
 */
public final class SpecLayout {
    private SpecLayout() {}

    /**
     * One field: a record path ("primaryPath.flowLabel"), the bits of its value it holds ({@code shift}), where, how
     * wide.
     */
    public record Field(String path, int shift, int byteOffset, int bitOffset, int width) {
        static Field at(String path, int byteOffset, int bitOffset, int width) {
            return new Field(path, 0, byteOffset, bitOffset, width);
        }

        static Field part(String path, int shift, int byteOffset, int width) {
            return new Field(path, shift, byteOffset, 0, width);
        }
    }

    private static List<Field> path(String prefix, int base) {
        return List.of(
                Field.at(prefix + ".localLid", base, 0, 16),
                Field.at(prefix + ".remoteLid", base + 2, 0, 16),
                Field.at(prefix + ".localGid", base + 4, 0, 128),
                Field.at(prefix + ".remoteGid", base + 20, 0, 128),
                Field.at(prefix + ".flowLabel", base + 36, 0, 20),
                Field.at(prefix + ".packetRate", base + 39, 2, 6),
                Field.at(prefix + ".trafficClass", base + 40, 0, 8),
                Field.at(prefix + ".hopLimit", base + 41, 0, 8),
                Field.at(prefix + ".sl", base + 42, 0, 4),
                Field.at(prefix + ".subnetLocal", base + 42, 4, 1),
                Field.at(prefix + ".localAckTimeout", base + 43, 0, 5));
    }

    private static List<Field> req() {
        List<Field> f = new ArrayList<>(List.of(
                Field.at("localCommId", 0, 0, 32),
                Field.at("vendorId", 5, 0, 24),
                Field.at("serviceId", 8, 0, 64),
                Field.at("localCaGuid", 16, 0, 64),
                Field.at("localQkey", 28, 0, 32),
                Field.at("localQpn", 32, 0, 24),
                Field.at("responderResources", 35, 0, 8),
                Field.at("localEecn", 36, 0, 24),
                Field.at("initiatorDepth", 39, 0, 8),
                Field.at("remoteEecn", 40, 0, 24),
                Field.at("remoteCmResponseTimeout", 43, 0, 5),
                Field.at("transportServiceType", 43, 5, 2),
                Field.at("endToEndFlowControl", 43, 7, 1),
                Field.at("startingPsn", 44, 0, 24),
                Field.at("localCmResponseTimeout", 47, 0, 5),
                Field.at("retryCount", 47, 5, 3),
                Field.at("pkey", 48, 0, 16),
                Field.at("pathMtu", 50, 0, 4),
                Field.at("rdcExists", 50, 4, 1),
                Field.at("rnrRetryCount", 50, 5, 3),
                Field.at("maxCmRetries", 51, 0, 4),
                Field.at("srq", 51, 4, 1),
                Field.at("extendedTransportType", 51, 5, 3)));
        f.addAll(path("primaryPath", 52));
        f.addAll(path("alternatePath", 96));
        f.add(Field.at("sapSupported", 139, 5, 1));
        f.add(Field.at("privateData", 140, 0, 736));
        return f;
    }

    public static final Map<CmAttribute, List<Field>> TABLE = Map.of(
            CmAttribute.REQ, req(),
            CmAttribute.MRA, List.of(
                    Field.at("localCommId", 0, 0, 32),
                    Field.at("remoteCommId", 4, 0, 32),
                    Field.at("messageMraed", 8, 0, 2),
                    Field.at("serviceTimeout", 9, 0, 5),
                    Field.at("privateData", 10, 0, 1776)),
            CmAttribute.REJ, List.of(
                    Field.at("localCommId", 0, 0, 32),
                    Field.at("remoteCommId", 4, 0, 32),
                    Field.at("messageRejected", 8, 0, 2),
                    Field.at("rejectedInfoLength", 9, 0, 7),
                    Field.at("reason", 10, 0, 16),
                    Field.at("ari", 12, 0, 576),
                    Field.at("privateData", 84, 0, 1184)),
            CmAttribute.REP, List.of(
                    Field.at("localCommId", 0, 0, 32),
                    Field.at("remoteCommId", 4, 0, 32),
                    Field.at("localQkey", 8, 0, 32),
                    Field.at("localQpn", 12, 0, 24),
                    Field.part("vendorId", 16, 15, 8),
                    Field.at("localEecn", 16, 0, 24),
                    Field.part("vendorId", 8, 19, 8),
                    Field.at("startingPsn", 20, 0, 24),
                    Field.part("vendorId", 0, 23, 8),
                    Field.at("responderResources", 24, 0, 8),
                    Field.at("initiatorDepth", 25, 0, 8),
                    Field.at("targetAckDelay", 26, 0, 5),
                    Field.at("failoverAccepted", 26, 5, 2),
                    Field.at("endToEndFlowControl", 26, 7, 1),
                    Field.at("rnrRetryCount", 27, 0, 3),
                    Field.at("srq", 27, 3, 1),
                    Field.at("localCaGuid", 28, 0, 64),
                    Field.at("privateData", 36, 0, 1568)),
            CmAttribute.RTU, List.of(
                    Field.at("localCommId", 0, 0, 32),
                    Field.at("remoteCommId", 4, 0, 32),
                    Field.at("privateData", 8, 0, 1792)),
            CmAttribute.DREQ, List.of(
                    Field.at("localCommId", 0, 0, 32),
                    Field.at("remoteCommId", 4, 0, 32),
                    Field.at("remoteQpnEecn", 8, 0, 24),
                    Field.at("privateData", 12, 0, 1760)),
            CmAttribute.DREP, List.of(
                    Field.at("localCommId", 0, 0, 32),
                    Field.at("remoteCommId", 4, 0, 32),
                    Field.at("privateData", 8, 0, 1792)),
            CmAttribute.SIDR_REQ, List.of(
                    Field.at("requestId", 0, 0, 32),
                    Field.at("pkey", 4, 0, 16),
                    Field.at("serviceId", 8, 0, 64),
                    Field.at("privateData", 16, 0, 1728)),
            CmAttribute.SIDR_REP, List.of(
                    Field.at("requestId", 0, 0, 32),
                    Field.at("status", 4, 0, 8),
                    Field.at("additionalInfoLength", 5, 0, 8),
                    Field.part("vendorId", 8, 6, 16),
                    Field.at("qpn", 8, 0, 24),
                    Field.part("vendorId", 0, 11, 8),
                    Field.at("serviceId", 12, 0, 64),
                    Field.at("qkey", 20, 0, 32),
                    Field.at("additionalInfo", 24, 0, 576),
                    Field.at("privateData", 96, 0, 1088)));

    /** The bits at Byte[Bit] of {@code data}, {@code width} wide, as an unsigned number. */
    public static BigInteger read(byte[] data, int dataOffset, Field f) {
        BigInteger v = BigInteger.ZERO;
        int first = (dataOffset + f.byteOffset()) * 8 + f.bitOffset();
        for (int i = 0; i < f.width(); i++) {
            int bit = first + i;
            int b = (data[bit / 8] >> (7 - bit % 8)) & 1;
            v = v.shiftLeft(1).or(BigInteger.valueOf(b));
        }
        return v;
    }

    /** The part of a message's field that {@code f} describes, as an unsigned number. */
    public static BigInteger expected(CmMessage m, Field f) {
        BigInteger whole = asNumber(valueAt(m, f.path()));
        return whole.shiftRight(f.shift()).and(BigInteger.ONE.shiftLeft(f.width()).subtract(BigInteger.ONE));
    }

    static Object valueAt(Object root, String path) {
        Object v = root;
        for (String name : path.split("\\.")) {
            v = component(v, name);
        }
        return v;
    }

    private static Object component(Object record, String name) {
        for (RecordComponent c : record.getClass().getRecordComponents()) {
            if (c.getName().equals(name)) {
                try {
                    return c.getAccessor().invoke(record);
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(e);
                }
            }
        }
        throw new AssertionError(record.getClass().getSimpleName() + " has no component " + name);
    }

    static BigInteger asNumber(Object v) {
        if (v instanceof Integer i) {
            return BigInteger.valueOf(i & 0xffffffffL);
        }
        if (v instanceof Long l) {
            return new BigInteger(1, java.nio.ByteBuffer.allocate(8).putLong(l).array());
        }
        if (v instanceof Boolean b) {
            return b ? BigInteger.ONE : BigInteger.ZERO;
        }
        if (v instanceof Gid g) {
            return new BigInteger(1, g.bytes());
        }
        if (v instanceof Octets o) {
            return new BigInteger(1, o.toByteArray());
        }
        throw new AssertionError("no numeric form for " + v);
    }

    /** Every leaf path of a message type's record components, to check that the table misses none. */
    static List<String> leafPaths(Class<?> type, String prefix) {
        List<String> out = new ArrayList<>();
        for (RecordComponent c : type.getRecordComponents()) {
            String p = prefix.isEmpty() ? c.getName() : prefix + "." + c.getName();
            if (c.getType() == CmPath.class) {
                out.addAll(leafPaths(CmPath.class, p));
            } else {
                out.add(p);
            }
        }
        return out;
    }
}
