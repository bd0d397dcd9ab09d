package io.rattan.core.owned;

import io.rattan.api.OwnerStamp;
import io.rattan.api.SignedOp;
import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.HexFormat;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class OwnerSignaturesTest {

    // RFC 8032, section 7.1, TEST 1.
    private static final Bytes RFC_SECRET =
            Bytes.fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
    private static final Bytes RFC_PUBLIC =
            Bytes.fromHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
    private static final Id KEY = Id.fromHex("00112233445566778899aabbccddeeff01234567");
    private static final Bytes DATA_HASH = Bytes.utf8("some data").sha256();

    @Test
    void derivesThePublicKeyOfRfc8032() {
        assertThat(OwnerSignatures.publicKey(RFC_SECRET)).isEqualTo(RFC_PUBLIC);
    }

    @Test
    void aSignatureVerifiesAndIsTheOneTheJdkMakesAndAccepts() throws GeneralSecurityException {
        OwnerStamp stamp = sign(SignedOp.PUT, 5, 1_800_000_000L);
        assertThat(OwnerSignatures.verifies(stamp, SignedOp.PUT, "default", KEY, DATA_HASH)).isTrue();

        byte[] message = SignedBytes.of(SignedOp.PUT, "default", KEY, 42, 5, 1_800_000_000L, DATA_HASH);
        Signature jdk = Signature.getInstance("Ed25519");
        jdk.initVerify(jdkPublic(RFC_PUBLIC));
        jdk.update(message);
        assertThat(jdk.verify(stamp.signature().toByteArray())).isTrue();
        // Ed25519 is deterministic: the JDK's signature of the same bytes is the same signature.
        jdk.initSign(jdkPrivate(RFC_SECRET));
        jdk.update(message);
        assertThat(Bytes.wrap(jdk.sign())).isEqualTo(stamp.signature());
    }

    @Test
    void everySignedFieldChangedFailsTheCheck() {
        OwnerStamp s = sign(SignedOp.PUT, 5, 1_800_000_000L);
        byte[] flipped = s.signature().toByteArray();
        flipped[10] ^= 1;
        byte[] otherOwner = s.owner().toByteArray();
        otherOwner[0] ^= 1;
        List<UnaryOperator<OwnerStamp>> tampered = List.of(
                x -> new OwnerStamp(x.owner(), x.valueId() + 1, x.seq(), x.expiresAtSeconds(), x.signature()),
                x -> new OwnerStamp(x.owner(), x.valueId(), x.seq() + 1, x.expiresAtSeconds(), x.signature()),
                x -> new OwnerStamp(x.owner(), x.valueId(), x.seq(), x.expiresAtSeconds() + 1, x.signature()),
                x -> new OwnerStamp(x.owner(), x.valueId(), x.seq(), x.expiresAtSeconds(), Bytes.wrap(flipped)),
                x -> new OwnerStamp(Bytes.wrap(otherOwner), x.valueId(), x.seq(), x.expiresAtSeconds(),
                        x.signature()));
        for (UnaryOperator<OwnerStamp> t : tampered) {
            assertThat(OwnerSignatures.verifies(t.apply(s), SignedOp.PUT, "default", KEY, DATA_HASH)).isFalse();
        }
        assertThat(OwnerSignatures.verifies(s, SignedOp.REMOVE, "default", KEY, DATA_HASH)).isFalse();
        assertThat(OwnerSignatures.verifies(s, SignedOp.PUT, "other", KEY, DATA_HASH)).isFalse();
        assertThat(OwnerSignatures.verifies(s, SignedOp.PUT, "default", Id.fromHex("01".repeat(20)), DATA_HASH))
                .isFalse();
        assertThat(OwnerSignatures.verifies(s, SignedOp.PUT, "default", KEY, Bytes.utf8("other").sha256()))
                .isFalse();
    }

    private static OwnerStamp sign(SignedOp op, long seq, long expiry) {
        return OwnerSignatures.sign(RFC_SECRET, op, "default", KEY, 42, seq, expiry, DATA_HASH);
    }

    private static PublicKey jdkPublic(Bytes raw) throws GeneralSecurityException {
        byte[] x509 = HexFormat.of().parseHex("302a300506032b6570032100" + raw.toHex());
        return KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(x509));
    }

    private static PrivateKey jdkPrivate(Bytes seed) throws GeneralSecurityException {
        byte[] pkcs8 = HexFormat.of().parseHex("302e020100300506032b657004220420" + seed.toHex());
        return KeyFactory.getInstance("Ed25519").generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
    }
}
