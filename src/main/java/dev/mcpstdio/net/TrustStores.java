package dev.mcpstdio.net;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The certificates a relay trusts: the JDK's bundled roots, the operating system's store (where a
 * user or an administrator installs a corporate CA), {@code SSL_CERT_FILE}, and the PEM file given
 * with {@code --ca-file}.
 *
 * <p>Loading certificate stores costs tens of milliseconds, so nothing is read until the first TLS
 * handshake: a plain-http upstream never pays for it. Files given explicitly are checked at start-up
 * so a typo fails fast.
 */
public final class TrustStores {

  /** PEM bundles where Linux and BSD distributions keep the system roots. */
  private static final List<Path> SYSTEM_BUNDLES =
      List.of(
          Path.of("/etc/ssl/certs/ca-certificates.crt"), // Debian, Ubuntu, Alpine, Arch
          Path.of("/etc/pki/tls/certs/ca-bundle.crt"), // Fedora, RHEL
          Path.of("/etc/ssl/ca-bundle.pem"), // openSUSE
          Path.of("/etc/ssl/cert.pem")); // macOS (LibreSSL), BSDs

  private TrustStores() {}

  /**
   * An SSL context trusting the union of the stores above.
   *
   * @param extraPemFiles additional PEM bundles; each must exist and hold at least one certificate
   */
  public static SSLContext sslContext(List<Path> extraPemFiles) throws IOException {
    for (Path file : extraPemFiles) {
      readPem(file); // fail fast on a missing or empty file
    }
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      TrustManager lazy = new LazyTrustManager(() -> build(extraPemFiles));
      context.init(null, new TrustManager[] {lazy}, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot initialise TLS: " + e.getMessage(), e);
    }
  }

  static List<X509Certificate> readPem(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IOException("CA file not found: " + file);
    }
    try (InputStream in = Files.newInputStream(file)) {
      Collection<? extends Certificate> certificates =
          CertificateFactory.getInstance("X.509").generateCertificates(in);
      List<X509Certificate> out = new ArrayList<>();
      for (Certificate c : certificates) {
        if (c instanceof X509Certificate x) {
          out.add(x);
        }
      }
      if (out.isEmpty()) {
        throw new IOException("no certificates in CA file " + file);
      }
      return out;
    } catch (CertificateException e) {
      throw new IOException("cannot read CA file " + file + ": " + e.getMessage(), e);
    }
  }

  private static X509ExtendedTrustManager build(List<Path> extraPemFiles) {
    try {
      KeyStore union = KeyStore.getInstance(KeyStore.getDefaultType());
      union.load(null, null);
      int[] count = {0};
      for (X509Certificate c : jdkRoots().getAcceptedIssuers()) {
        union.setCertificateEntry("jdk-" + count[0]++, c);
      }
      for (KeyStore os : osStores()) {
        for (String alias : Collections.list(os.aliases())) {
          Certificate c = os.getCertificate(alias);
          if (c != null) {
            union.setCertificateEntry("os-" + count[0]++, c);
          }
        }
      }
      List<Path> files = new ArrayList<>();
      SYSTEM_BUNDLES.stream().filter(Files::isReadable).findFirst().ifPresent(files::add);
      String env = System.getenv("SSL_CERT_FILE");
      if (env != null && !env.isBlank()) {
        files.add(Path.of(env));
      }
      files.addAll(extraPemFiles);
      for (Path file : files) {
        try {
          for (X509Certificate c : readPem(file)) {
            union.setCertificateEntry("pem-" + count[0]++, c);
          }
        } catch (IOException e) {
          if (extraPemFiles.contains(file)) {
            throw e;
          }
          // An unreadable system bundle is not fatal: the JDK's roots still apply.
        }
      }
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(union);
      return firstX509(factory.getTrustManagers());
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot load trusted certificates: " + e.getMessage(), e);
    }
  }

  private static X509ExtendedTrustManager jdkRoots() throws GeneralSecurityException {
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init((KeyStore) null);
    return firstX509(factory.getTrustManagers());
  }

  /** The OS certificate stores the JDK can open directly (macOS keychain, Windows roots). */
  private static List<KeyStore> osStores() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    List<String> types = new ArrayList<>();
    if (os.contains("win")) {
      types.add("Windows-ROOT");
    } else if (os.contains("mac")) {
      types.add("KeychainStore-ROOT");
      types.add("KeychainStore");
    }
    List<KeyStore> stores = new ArrayList<>();
    for (String type : types) {
      try {
        KeyStore store = KeyStore.getInstance(type);
        store.load(null, null);
        stores.add(store);
      } catch (IOException | GeneralSecurityException | RuntimeException ignored) {
        // this JDK has no such store
      }
    }
    return stores;
  }

  private static X509ExtendedTrustManager firstX509(TrustManager[] managers) {
    for (TrustManager m : managers) {
      if (m instanceof X509ExtendedTrustManager x) {
        return x;
      }
    }
    throw new IllegalStateException("no X.509 trust manager available");
  }

  /** Builds the real trust manager on first use. */
  private static final class LazyTrustManager extends X509ExtendedTrustManager {
    private final Supplier<X509ExtendedTrustManager> factory;
    private volatile X509ExtendedTrustManager delegate;

    LazyTrustManager(Supplier<X509ExtendedTrustManager> factory) {
      this.factory = factory;
    }

    private X509ExtendedTrustManager delegate() {
      X509ExtendedTrustManager d = delegate;
      if (d == null) {
        synchronized (this) {
          d = delegate;
          if (d == null) {
            d = factory.get();
            delegate = d;
          }
        }
      }
      return d;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      delegate().checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      delegate().checkServerTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      delegate().checkServerTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      throw new CertificateException("client certificates are not accepted");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      throw new CertificateException("client certificates are not accepted");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      throw new CertificateException("client certificates are not accepted");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return delegate().getAcceptedIssuers();
    }
  }
}
