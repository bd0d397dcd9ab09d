package io.rattan.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.SignedOp;
import io.rattan.core.owned.OwnerSignatures;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OwnerKeyTest {

    private static final Id KEY = Id.ofName("owned");
    private static final Bytes DATA_HASH = Bytes.utf8("v1").sha256();

    @TempDir
    Path dir;

    @Test
    void aWrittenKeyLoadsBackAndIsTheOwnersAlone() throws Exception {
        OwnerKey key = OwnerKey.generate();
        Path file = dir.resolve("owner.pem");
        key.write(file);
        assertThat(Files.readString(file)).startsWith("-----BEGIN PRIVATE KEY-----\n")
                .endsWith("-----END PRIVATE KEY-----\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        OwnerKey loaded = OwnerKey.load(file);
        assertThat(loaded.publicKey()).isEqualTo(key.publicKey());
        assertThat(key.toString()).contains(key.publicKeyBase64Url()).hasSizeLessThan(60);
        assertThat(Base64.getUrlDecoder().decode(key.publicKeyBase64Url())).hasSize(32);

        assertThatThrownBy(() -> OwnerKey.generate().write(file)).isInstanceOf(FileAlreadyExistsException.class);
        assertThat(OwnerKey.load(file).publicKey()).isEqualTo(key.publicKey());
    }

    @Test
    void itsStampsVerify() {
        OwnerKey key = OwnerKey.generate();
        OwnerStamp stamp = key.sign(SignedOp.PUT, KEY, 7, 1, 1_800_000_000L, DATA_HASH);
        assertThat(stamp.owner()).isEqualTo(key.publicKey());
        assertThat(OwnerSignatures.verifies(stamp, SignedOp.PUT, "default", KEY, DATA_HASH)).isTrue();
        assertThat(OwnerSignatures.verifies(stamp, SignedOp.PUT, "default", KEY, Bytes.utf8("v2").sha256()))
                .isFalse();
        assertThat(OwnerSignatures.verifies(OwnerKey.generate().sign(SignedOp.PUT, KEY, 7, 1, 1_800_000_000L,
                DATA_HASH), SignedOp.PUT, "default", KEY, DATA_HASH)).isTrue();
    }

    @Test
    void readsTheJdksPkcs8DerAndARawSeed() throws Exception {
        KeyPair pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        Path der = dir.resolve("jdk.der");
        Files.write(der, pair.getPrivate().getEncoded());
        byte[] x509 = pair.getPublic().getEncoded();
        Bytes jdkPublic = Bytes.wrap(Arrays.copyOfRange(x509, x509.length - 32, x509.length));
        assertThat(OwnerKey.load(der).publicKey()).isEqualTo(jdkPublic);

        Bytes seed = Bytes.fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
        Path raw = dir.resolve("raw");
        Files.write(raw, seed.toByteArray());
        assertThat(OwnerKey.load(raw).publicKey())
                .isEqualTo(Bytes.fromHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"));
        assertThat(OwnerKey.ofPrivateKey(seed).publicKey()).isEqualTo(OwnerKey.load(raw).publicKey());
    }

    @Test
    void aFileWithoutAnEd25519KeyIsRefusedWithASentence() throws Exception {
        Path text = dir.resolve("text");
        Files.writeString(text, "not a key", StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> OwnerKey.load(text)).hasMessageContaining("holds no Ed25519 private key");
        Path cut = dir.resolve("cut.pem");
        Files.writeString(cut, "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEI\n");
        assertThatThrownBy(() -> OwnerKey.load(cut)).hasMessageContaining("END PRIVATE KEY");
        Path rsa = dir.resolve("rsa.der");
        Files.write(rsa, KeyPairGenerator.getInstance("RSA").generateKeyPair().getPrivate().getEncoded());
        assertThatThrownBy(() -> OwnerKey.load(rsa)).hasMessageContaining("holds no Ed25519 private key");
        assertThatThrownBy(() -> OwnerKey.ofPrivateKey(Bytes.wrap(new byte[31]))).hasMessageContaining("32 bytes");
    }
}
