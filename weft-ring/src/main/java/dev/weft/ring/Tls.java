package dev.weft.ring;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.Objects;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * TLS for weft-ring: the server's key and certificate, from a key store file or from PEM files,
 * reloadable while the server runs. Protocols are TLS 1.3 and 1.2 only.
 *
 * <p>A {@code Tls} remembers where its key and certificate come from: {@link #reload()} reads them
 * again (a renewed certificate, say) and swaps them into the running server's SSL context; the
 * handshakes that follow use the new one, connections already open keep theirs, and no request
 * fails.
 */
public final class Tls {

    /** The TLS protocols weft-ring speaks; older ones are refused. */
    public static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private static final String PEM_STORE_PASSWORD = "weft-in-memory";

    private final Path keyStore;
    private final String keyStoreType;
    private final String keyStorePassword;
    private final String keyPassword;
    private final Path certPem;
    private final Path keyPem;
    private final SslContextFactory.Server factory = new SslContextFactory.Server();

    private Tls(
            Path keyStore, String keyStoreType, String keyStorePassword, String keyPassword, Path certPem, Path keyPem)
            throws IOException, GeneralSecurityException {
        this.keyStore = keyStore;
        this.keyStoreType = keyStoreType;
        this.keyStorePassword = keyStorePassword;
        this.keyPassword = keyPassword;
        this.certPem = certPem;
        this.keyPem = keyPem;
        factory.setIncludeProtocols(PROTOCOLS);
        factory.setSniRequired(false);
        configure(factory);
    }

    /**
     * TLS with the key and certificate of a key store file (PKCS12 or JKS).
     *
     * @param type     the key store type, e.g. "PKCS12" (null for PKCS12)
     * @param password the key store's password (null for none)
     * @param keyPassword the key's password, when it differs from the store's (else null)
     */
    public static Tls keyStore(Path file, String type, String password, String keyPassword)
            throws IOException, GeneralSecurityException {
        Objects.requireNonNull(file, "file");
        return new Tls(file, type == null ? "PKCS12" : type, password, keyPassword, null, null);
    }

    /**
     * TLS with a PEM certificate chain and an unencrypted PKCS#8 PEM private key ("BEGIN PRIVATE
     * KEY", RSA or EC), as issued by Let's Encrypt and most tools.
     */
    public static Tls pem(Path certificateChain, Path privateKey) throws IOException, GeneralSecurityException {
        return new Tls(
                null,
                null,
                null,
                null,
                Objects.requireNonNull(certificateChain, "certificateChain"),
                Objects.requireNonNull(privateKey, "privateKey"));
    }

    /** Jetty's SSL context factory, for the server's TLS connector. */
    public SslContextFactory.Server contextFactory() {
        return factory;
    }

    /**
     * Reads the key and certificate again from where they came from and makes the running server
     * use them for new handshakes.
     *
     * @throws IOException or GeneralSecurityException if they cannot be read; the server then keeps
     *                     the ones it had
     */
    public void reload() throws Exception {
        KeyStore fresh = load(); // read first: a bad file leaves the server as it was
        factory.reload(f -> {
            f.setKeyStore(fresh);
            f.setKeyStorePassword(storePassword());
            f.setKeyManagerPassword(managerPassword());
        });
    }

    private void configure(SslContextFactory f) throws IOException, GeneralSecurityException {
        f.setKeyStore(load());
        f.setKeyStorePassword(storePassword());
        f.setKeyManagerPassword(managerPassword());
    }

    private String storePassword() {
        return keyStore != null ? (keyStorePassword == null ? "" : keyStorePassword) : PEM_STORE_PASSWORD;
    }

    private String managerPassword() {
        return keyStore != null ? (keyPassword != null ? keyPassword : storePassword()) : PEM_STORE_PASSWORD;
    }

    private KeyStore load() throws IOException, GeneralSecurityException {
        if (keyStore != null) {
            KeyStore ks = KeyStore.getInstance(keyStoreType);
            try (InputStream in = Files.newInputStream(keyStore)) {
                ks.load(in, keyStorePassword == null ? null : keyStorePassword.toCharArray());
            }
            return ks;
        }
        Collection<? extends Certificate> chain;
        try (InputStream in = Files.newInputStream(certPem)) {
            chain = CertificateFactory.getInstance("X.509").generateCertificates(in);
        }
        if (chain.isEmpty()) {
            throw new GeneralSecurityException(certPem + " holds no PEM certificate (\"-----BEGIN CERTIFICATE-----\")");
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry("weft", privateKey(keyPem), PEM_STORE_PASSWORD.toCharArray(), chain.toArray(new Certificate[0]));
        return ks;
    }

    private static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
        String pem = Files.readString(file, StandardCharsets.US_ASCII);
        if (pem.contains("BEGIN RSA PRIVATE KEY")
                || pem.contains("BEGIN EC PRIVATE KEY")
                || pem.contains("BEGIN ENCRYPTED PRIVATE KEY")) {
            throw new GeneralSecurityException(file + " holds a PKCS#1, SEC1 or encrypted key; weft reads unencrypted"
                    + " PKCS#8 (\"BEGIN PRIVATE KEY\"): convert it with"
                    + " openssl pkcs8 -topk8 -nocrypt -in " + file.getFileName() + " -out key.pem");
        }
        int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
        int end = pem.indexOf("-----END PRIVATE KEY-----");
        if (begin < 0 || end < begin) {
            throw new GeneralSecurityException(file + " holds no PEM private key (\"-----BEGIN PRIVATE KEY-----\")");
        }
        byte[] der = Base64.getMimeDecoder().decode(pem.substring(begin + "-----BEGIN PRIVATE KEY-----".length(), end));
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        GeneralSecurityException last = null;
        for (String algorithm : new String[] {"RSA", "EC", "Ed25519"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException e) {
                last = e;
            }
        }
        throw new GeneralSecurityException(file + ": the private key is neither RSA, EC nor Ed25519", last);
    }
}
