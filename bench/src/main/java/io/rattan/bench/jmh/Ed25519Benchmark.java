package io.rattan.bench.jmh;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Signing and verifying one owned value's signed bytes (100 bytes for the default namespace) with the JDK's Ed25519
 * and with BouncyCastle's, to pick the provider: every replica verifies every owned value it is brought. The JDK's
 * verify is measured as a replica does it, from the owner's raw 32-byte key (decoded each time) and with the key
 * decoded once.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class Ed25519Benchmark {

    private static final byte[] X509_PREFIX = HexFormat.of().parseHex("302a300506032b6570032100");

    private final byte[] message = new byte[100];
    private KeyPair jdkPair;
    private byte[] rawPublic;
    private byte[] jdkSignature;
    private PublicKey decodedOnce;
    private final byte[] bcSecret = new byte[Ed25519.SECRET_KEY_SIZE];
    private final byte[] bcPublic = new byte[Ed25519.PUBLIC_KEY_SIZE];
    private final byte[] bcSignature = new byte[Ed25519.SIGNATURE_SIZE];

    @Setup
    public void setUp() throws GeneralSecurityException {
        new SplittableRandom(7).nextBytes(message);
        jdkPair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        byte[] encoded = jdkPair.getPublic().getEncoded();
        rawPublic = Arrays.copyOfRange(encoded, encoded.length - 32, encoded.length);
        decodedOnce = decode(rawPublic);
        jdkSignature = jdkSign();
        new SplittableRandom(8).nextBytes(bcSecret);
        Ed25519.generatePublicKey(bcSecret, 0, bcPublic, 0);
        Ed25519.sign(bcSecret, 0, message, 0, message.length, bcSignature, 0);
        if (!jdkVerifyRaw() || !bcVerify()) {
            throw new IllegalStateException("a signature did not verify");
        }
    }

    private static PublicKey decode(byte[] raw) throws GeneralSecurityException {
        byte[] x509 = Arrays.copyOf(X509_PREFIX, X509_PREFIX.length + raw.length);
        System.arraycopy(raw, 0, x509, X509_PREFIX.length, raw.length);
        return KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(x509));
    }

    @Benchmark
    public byte[] jdkSign() throws GeneralSecurityException {
        Signature s = Signature.getInstance("Ed25519");
        s.initSign(jdkPair.getPrivate());
        s.update(message);
        return s.sign();
    }

    @Benchmark
    public boolean jdkVerifyRaw() throws GeneralSecurityException {
        Signature s = Signature.getInstance("Ed25519");
        s.initVerify(decode(rawPublic));
        s.update(message);
        return s.verify(jdkSignature);
    }

    @Benchmark
    public boolean jdkVerifyDecoded() throws GeneralSecurityException {
        Signature s = Signature.getInstance("Ed25519");
        s.initVerify(decodedOnce);
        s.update(message);
        return s.verify(jdkSignature);
    }

    @Benchmark
    public byte[] bcSign() {
        byte[] sig = new byte[Ed25519.SIGNATURE_SIZE];
        Ed25519.sign(bcSecret, 0, message, 0, message.length, sig, 0);
        return sig;
    }

    @Benchmark
    public boolean bcVerify() {
        return Ed25519.verify(bcSignature, 0, bcPublic, 0, message, 0, message.length);
    }
}
