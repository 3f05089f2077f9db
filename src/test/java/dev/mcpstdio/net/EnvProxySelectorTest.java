package dev.mcpstdio.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EnvProxySelectorTest {

  static EnvProxySelector selector(String... kv) {
    java.util.HashMap<String, String> env = new java.util.HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      env.put(kv[i], kv[i + 1]);
    }
    return EnvProxySelector.fromEnvironment(env);
  }

  static String proxyFor(EnvProxySelector s, String uri) {
    List<Proxy> proxies = s.select(URI.create(uri));
    assertThat(proxies).hasSize(1);
    Proxy p = proxies.get(0);
    if (p.type() == Proxy.Type.DIRECT) {
      return "DIRECT";
    }
    assertThat(p.type()).isEqualTo(Proxy.Type.HTTP);
    InetSocketAddress a = (InetSocketAddress) p.address();
    assertThat(a.isUnresolved()).isTrue(); // resolved by the client, not at selection time
    return a.getHostString() + ":" + a.getPort();
  }

  @Test
  void noProxyVariablesMeansNoSelector() {
    assertThat(selector()).isNull();
    assertThat(selector("NO_PROXY", "*")).isNull();
    assertThat(selector("HTTP_PROXY", "", "HTTPS_PROXY", "   ")).isNull();
  }

  @Test
  void schemeSelectsTheVariable() {
    EnvProxySelector s = selector("HTTP_PROXY", "http://plain:3128", "HTTPS_PROXY", "http://secure:8443");
    assertThat(proxyFor(s, "http://example.com/mcp")).isEqualTo("plain:3128");
    assertThat(proxyFor(s, "https://example.com/mcp")).isEqualTo("secure:8443");
    assertThat(proxyFor(s, "HTTPS://example.com/mcp")).isEqualTo("secure:8443");
  }

  @Test
  void onlyOneSchemeConfigured() {
    EnvProxySelector s = selector("HTTPS_PROXY", "http://secure:8443");
    assertThat(proxyFor(s, "http://example.com/")).isEqualTo("DIRECT");
    assertThat(proxyFor(s, "https://example.com/")).isEqualTo("secure:8443");
  }

  @Test
  void lowerCaseVariablesAndUpperCaseWins() {
    assertThat(proxyFor(selector("https_proxy", "http://lower:1"), "https://x.test/")).isEqualTo("lower:1");
    assertThat(proxyFor(selector("https_proxy", "http://lower:1", "HTTPS_PROXY", "http://upper:2"), "https://x.test/"))
        .isEqualTo("upper:2");
    assertThat(proxyFor(selector("https_proxy", "http://lower:1", "HTTPS_PROXY", " "), "https://x.test/"))
        .isEqualTo("lower:1");
    EnvProxySelector s = selector("HTTP_PROXY", "http://p:1", "no_proxy", "internal.test");
    assertThat(proxyFor(s, "http://internal.test/")).isEqualTo("DIRECT");
  }

  @Test
  void schemeLessAndPortLessValues() {
    assertThat(proxyFor(selector("HTTP_PROXY", "proxy.corp:3128"), "http://x.test/")).isEqualTo("proxy.corp:3128");
    assertThat(proxyFor(selector("HTTP_PROXY", "http://proxy.corp"), "http://x.test/")).isEqualTo("proxy.corp:80");
    assertThat(proxyFor(selector("HTTP_PROXY", "  http://proxy.corp:1/  "), "http://x.test/")).isEqualTo("proxy.corp:1");
    assertThat(proxyFor(selector("HTTP_PROXY", "HTTP://Proxy.Corp:9"), "http://x.test/")).isEqualTo("Proxy.Corp:9");
  }

  @ParameterizedTest
  @ValueSource(strings = {"https://proxy:443", "socks5://proxy:1080", "HTTPS://proxy"})
  void nonHttpProxySchemesAreRejected(String value) {
    assertThatThrownBy(() -> selector("HTTPS_PROXY", value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("HTTPS_PROXY")
        .hasMessageContaining("only http://");
  }

  @ParameterizedTest
  @ValueSource(strings = {"http://", "http://exa mple:80", "http://[::1", "://nohost", "http:///path", "http://host:port"})
  void invalidUrlsAreRejected(String value) {
    assertThatThrownBy(() -> selector("HTTP_PROXY", value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("HTTP_PROXY");
  }

  @Test
  void invalidUrlMessageDoesNotEchoCredentials() {
    assertThatThrownBy(() -> selector("HTTP_PROXY", "http://user:s3cret@bad host:80"))
        .isInstanceOf(IllegalArgumentException.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret"));
  }

  @Test
  void loopbackIsNeverProxied() {
    EnvProxySelector s = selector("HTTP_PROXY", "http://p:1", "HTTPS_PROXY", "http://p:2");
    for (String uri :
        new String[] {
          "http://localhost:8080/mcp",
          "http://LOCALHOST/",
          "https://app.localhost/",
          "http://127.0.0.1:3000/",
          "http://127.1.2.3/",
          "http://[::1]:8080/",
          "http://[0:0:0:0:0:0:0:1]/",
        }) {
      assertThat(proxyFor(s, uri)).as(uri).isEqualTo("DIRECT");
    }
    assertThat(proxyFor(s, "http://localhost.example.com/")).isEqualTo("p:1");
    assertThat(proxyFor(s, "http://128.0.0.1/")).isEqualTo("p:1");
  }

  @Test
  void noProxySuffixMatching() {
    EnvProxySelector s = selector("HTTPS_PROXY", "http://p:1", "NO_PROXY", "example.com, .corp.test ,*.wild.test");
    assertThat(proxyFor(s, "https://example.com/")).isEqualTo("DIRECT");
    assertThat(proxyFor(s, "https://api.example.com/")).isEqualTo("DIRECT");
    assertThat(proxyFor(s, "https://API.Example.COM/")).isEqualTo("DIRECT");
    assertThat(proxyFor(s, "https://badexample.com/")).isEqualTo("p:1");
    assertThat(proxyFor(s, "https://example.com.evil.test/")).isEqualTo("p:1");
    assertThat(proxyFor(s, "https://corp.test/")).isEqualTo("DIRECT");
    assertThat(proxyFor(s, "https://a.b.corp.test/")).isEqualTo("DIRECT");
    assertThat(proxyFor(s, "https://notcorp.test/")).isEqualTo("p:1");
    assertThat(proxyFor(s, "https://x.wild.test/")).isEqualTo("DIRECT");
    assertThat(proxyFor(s, "https://wild.test/")).isEqualTo("DIRECT");
    assertThat(proxyFor(s, "https://other.test/")).isEqualTo("p:1");
  }

  @Test
  void noProxyWithPorts() {
    EnvProxySelector s =
        selector("HTTP_PROXY", "http://p:1", "HTTPS_PROXY", "http://p:2", "NO_PROXY", "a.test:8080,b.test:443,c.test:80");
    assertThat(proxyFor(s, "http://a.test:8080/")).isEqualTo("DIRECT");
    assertThat(proxyFor(s, "http://a.test:8081/")).isEqualTo("p:1");
    assertThat(proxyFor(s, "http://a.test/")).isEqualTo("p:1");
    assertThat(proxyFor(s, "http://sub.a.test:8080/")).isEqualTo("DIRECT");
    // a port in NO_PROXY matches the scheme's default port when the URL has none
    assertThat(proxyFor(s, "https://b.test/")).isEqualTo("DIRECT");
    assertThat(proxyFor(s, "https://b.test:443/")).isEqualTo("DIRECT");
    assertThat(proxyFor(s, "http://b.test/")).isEqualTo("p:1");
    assertThat(proxyFor(s, "http://c.test/")).isEqualTo("DIRECT");
    assertThat(proxyFor(s, "https://c.test/")).isEqualTo("p:2");
  }

  @Test
  void noProxyWildcard() {
    EnvProxySelector s = selector("HTTP_PROXY", "http://p:1", "NO_PROXY", "foo.test,*");
    assertThat(proxyFor(s, "http://anything.example/")).isEqualTo("DIRECT");
  }

  @Test
  void noProxyIpAddresses() {
    EnvProxySelector s =
        selector("HTTP_PROXY", "http://p:1", "NO_PROXY", "10.0.0.5,192.168.1.1:8080,2001:db8::1,[2001:db8::2]");
    assertThat(proxyFor(s, "http://10.0.0.5/")).isEqualTo("DIRECT");
    assertThat(proxyFor(s, "http://10.0.0.50/")).isEqualTo("p:1");
    assertThat(proxyFor(s, "http://110.0.0.5/")).isEqualTo("p:1");
    assertThat(proxyFor(s, "http://192.168.1.1:8080/")).isEqualTo("DIRECT");
    assertThat(proxyFor(s, "http://192.168.1.1:9090/")).isEqualTo("p:1");
    assertThat(proxyFor(s, "http://[2001:db8::1]/")).isEqualTo("DIRECT");
    assertThat(proxyFor(s, "http://[2001:db8::2]:8080/")).isEqualTo("DIRECT");
    assertThat(proxyFor(s, "http://[2001:db8::3]/")).isEqualTo("p:1");
  }

  @Test
  void emptyNoProxyEntriesAreIgnored() {
    EnvProxySelector s = selector("HTTP_PROXY", "http://p:1", "NO_PROXY", ", ,,");
    assertThat(proxyFor(s, "http://x.test/")).isEqualTo("p:1");
  }

  @Test
  void uriWithoutHostIsDirect() {
    EnvProxySelector s = selector("HTTP_PROXY", "http://p:1");
    assertThat(s.select(URI.create("http:/relative"))).containsExactly(Proxy.NO_PROXY);
  }

  @Test
  void describeOmitsCredentials() {
    EnvProxySelector s =
        selector("HTTP_PROXY", "http://user:pw@p:1", "HTTPS_PROXY", "http://q:2", "NO_PROXY", "a.test,B.test");
    assertThat(s.describe()).isEqualTo("http=p:1 https=q:2 no_proxy=a.test,b.test");
    assertThat(selector("HTTPS_PROXY", "http://q:2").describe()).isEqualTo("http=none https=q:2");
  }

  // ---- credentials ---------------------------------------------------------------------

  /** What the client would send as {@code Proxy-Authorization} to {@code host:port}, decoded, or null. */
  static String credentialsFor(EnvProxySelector s, String host, int port) {
    String value = s.proxyAuthorization(new Proxy(Proxy.Type.HTTP, InetSocketAddress.createUnresolved(host, port)));
    if (value == null) {
      return null;
    }
    assertThat(value).startsWith("Basic ");
    return new String(java.util.Base64.getDecoder().decode(value.substring(6)), java.nio.charset.StandardCharsets.UTF_8);
  }

  @Test
  void credentialsAreOfferedOnlyToTheProxyTheyNameDecoded() {
    EnvProxySelector s = selector("HTTPS_PROXY", "http://alice:s%40cret%2Bx+y@proxy.test:3128");
    // percent escapes decoded; '+' in userinfo is a literal plus, not a space
    assertThat(credentialsFor(s, "proxy.test", 3128)).isEqualTo("alice:s@cret+x+y");
    assertThat(credentialsFor(s, "PROXY.test", 3128)).isEqualTo("alice:s@cret+x+y");
    assertThat(credentialsFor(s, "proxy.test", 3129)).isNull();
    assertThat(credentialsFor(s, "other-proxy.test", 3128)).isNull();
    assertThat(credentialsFor(s, "origin.test", 443)).isNull();
  }

  @Test
  void eachProxyGetsItsOwnCredentials() {
    EnvProxySelector s =
        selector("HTTP_PROXY", "http://bob@plain.test:80", "HTTPS_PROXY", "http://carol:pw2@secure.test:8443");
    assertThat(credentialsFor(s, "plain.test", 80)).isEqualTo("bob:");
    assertThat(credentialsFor(s, "secure.test", 8443)).isEqualTo("carol:pw2");
  }

  @Test
  void noCredentialsMeansNoHeader() {
    assertThat(credentialsFor(selector("HTTP_PROXY", "http://p:1"), "p", 1)).isNull();
  }

  @Test
  void sameProxyForBothSchemes() {
    EnvProxySelector s = EnvProxySelector.fromEnvironment(Map.of("HTTP_PROXY", "http://p:1", "HTTPS_PROXY", "http://p:1"));
    assertThat(proxyFor(s, "http://a.test/")).isEqualTo(proxyFor(s, "https://a.test/"));
  }

  @Test
  void onlyRealLoopbackAddressesBypassTheProxy() {
    EnvProxySelector s = selector("HTTP_PROXY", "http://proxy:3128");
    assertThat(s.select(URI.create("http://127.0.0.1/x"))).containsExactly(Proxy.NO_PROXY);
    assertThat(s.select(URI.create("http://127.10.0.1:8080/x"))).containsExactly(Proxy.NO_PROXY);
    assertThat(s.select(URI.create("http://127.evil.com/x"))).doesNotContain(Proxy.NO_PROXY);
  }
}
