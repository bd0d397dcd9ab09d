package io.rattan.core.msg;

import io.rattan.api.OwnerStamp;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.MembershipMessages.IdProof;
import io.rattan.core.msg.RequestMessages.PutRequest;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * A put's proof of its origin (protocol 17): the gateway signs what the put carries with its node key, so that the
 * key's root counts the put against the node that really sent it ({@code OriginMeter}), and no node that names
 * another as the origin, nor any hop that changes what the put carries, passes the root's check. The signed bytes
 * are a domain tag, the namespace, the key, SHA-256 of the value, the absolute expiry, the binding, the origin's id
 * and request id, the owner's signature (an owned put's) and the condition; not the TTL, which a gateway's second try
 * lowers, nor the origin's address, which only says where answers go.
 */
final class PutOrigins {

    private static final byte[] DOMAIN = "rattan put origin v1\0".getBytes(StandardCharsets.US_ASCII);

    private PutOrigins() {
    }

    /** {@code p} signed by {@code key}, the key of its origin. */
    static PutRequest signed(NodeKey key, String namespace, PutRequest p) {
        return p.withOriginProof(new IdProof(key.publicKey(), key.sign(signedBytes(namespace, p))));
    }

    /** Whether {@code p} carries a valid signature of its origin: a key whose hash is the origin's id signed it. */
    static boolean proven(String namespace, PutRequest p) {
        IdProof proof = p.originProof();
        return proof != null && NodeKey.idOf(proof.publicKey()).equals(p.origin().id())
                && NodeKey.verifies(proof.publicKey(), signedBytes(namespace, p), proof.signature());
    }

    static byte[] signedBytes(String namespace, PutRequest p) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.write(DOMAIN);
            out.writeUTF(namespace);
            out.write(p.key().toBytes());
            out.write(p.value().sha256().toByteArray());
            out.writeLong(p.expiresAtMillis());
            out.writeByte(p.binding().length());
            out.write(p.binding().toByteArray());
            out.write(p.origin().id().toBytes());
            out.writeLong(p.originRequestId());
            OwnerStamp stamp = p.stamp();
            out.writeBoolean(stamp != null);
            if (stamp != null) {
                out.write(stamp.signature().toByteArray());
            }
            out.writeByte(p.condition().kind().ordinal());
            out.writeLong(p.condition().seq());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
