package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class HostGuardTest {

  private static final String HOST_REFUSED = "Host header not allowed";
  private static final String ORIGIN_REFUSED = "Origin not allowed";

  private static HostGuard loopback() {
    return new HostGuard("127.0.0.1", null, List.of());
  }

  @Nested
  class HostHeaderOnALoopbackBind {

    @ParameterizedTest
    @ValueSource(strings = {"localhost", "localhost:8080", "127.0.0.1", "127.0.0.1:1", "127.255.0.9", "[::1]",
        "[::1]:80", "[0:0:0:0:0:0:0:1]:8080", "foo.localhost", "a.b.localhost:9", "LOCALHOST.", "LocalHost:65535",
        " localhost ", "localhost.:8080"})
    void loopbackHostsAreServed(String host) {
      assertThat(loopback().refusal(host, null)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"evil.example.com", "evil.example.com:8080", "127.0.0.1.evil.com", "localhost.evil.com",
        "localhost:abc", "localhost:", "localhost:123456", "[::1", "[::1]x", "[::1]:", "", "   ", "0.0.0.0",
        "0.0.0.0:8080", "128.0.0.1", "127.0.0.256", "127.0.0", "127.0.0.1.1", "::1", "192.168.1.10", "[::2]",
        "local host", "localhost/x", "user@localhost", "evil.example.com:8080:80"})
    void otherHostsAreRefused(String host) {
      assertThat(loopback().refusal(host, null)).isEqualTo(HOST_REFUSED);
    }

    @Test
    void aRequestWithoutHostIsNotRefusedForIt() {
      assertThat(loopback().refusal(null, null)).isNull();
    }

    @Test
    void everyLoopbackBindChecksTheHost() {
      for (String bind : List.of("127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]")) {
        assertThat(new HostGuard(bind, null, List.of()).refusal("evil.example.com", null)).as(bind).isEqualTo(HOST_REFUSED);
      }
    }

    @Test
    void thePublicUrlsHostIsServedInAnyCaseAndWithAnyPort() {
      HostGuard guard = new HostGuard("127.0.0.1", URI.create("https://mcp.example.com/base"), List.of());

      assertThat(guard.refusal("mcp.example.com", null)).isNull();
      assertThat(guard.refusal("MCP.Example.com:443", null)).isNull();
      assertThat(guard.refusal("mcp.example.com.", null)).isNull();
      assertThat(guard.refusal("localhost:8080", null)).isNull();
      assertThat(guard.refusal("other.example.com", null)).isEqualTo(HOST_REFUSED);
      assertThat(guard.refusal("mcp.example.com.evil.com", null)).isEqualTo(HOST_REFUSED);
    }

    @Test
    void thePublicUrlsHostIsComparedWithoutCase() {
      HostGuard guard = new HostGuard("127.0.0.1", URI.create("https://MCP.Example.COM"), List.of());

      assertThat(guard.refusal("mcp.example.com", null)).isNull();
    }
  }

  @Nested
  class HostHeaderOnANonLoopbackBind {

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "192.168.1.10", "::", "server.example.com"})
    void anyHostIsServed(String bind) {
      HostGuard guard = new HostGuard(bind, null, List.of());

      assertThat(guard.refusal("evil.example.com", null)).isNull();
      assertThat(guard.refusal("localhost:abc", null)).isNull();
      assertThat(guard.refusal("", null)).isNull();
    }

    @Test
    void theOriginIsStillChecked() {
      HostGuard guard = new HostGuard("0.0.0.0", null, List.of());

      assertThat(guard.refusal("evil.example.com", "http://evil.example.com")).isEqualTo(ORIGIN_REFUSED);
      assertThat(guard.refusal("evil.example.com", "http://localhost:3000")).isNull();
    }
  }

  @Nested
  class OriginHeader {

    @Test
    void anAbsentOriginIsFine() {
      assertThat(loopback().refusal("localhost", null)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://localhost:3000", "http://localhost", "https://127.0.0.1", "http://127.0.0.1:8080",
        "http://[::1]:5", "https://[::1]", "http://app.localhost:5173", "HTTP://LOCALHOST:3000", "http://localhost:3000/",
        " http://localhost "})
    void loopbackOriginsAreAllowed(String origin) {
      assertThat(loopback().refusal("localhost", origin)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://evil.example.com", "https://evil.example.com:8080", "null", "", "http://localhost.evil.com",
        "http://127.0.0.1.evil.com", "ftp://localhost", "ws://localhost", "file://localhost", "http://user@localhost",
        "http://user:pw@localhost:3000", "http://localhost/path", "localhost", "//localhost",
        "http://", "http://0.0.0.0", "http://[::2]", "not a url"})
    void otherOriginsAreRefused(String origin) {
      assertThat(loopback().refusal("localhost", origin)).isEqualTo(ORIGIN_REFUSED);
    }

    @Test
    void aHostRefusalIsReportedBeforeTheOrigin() {
      assertThat(loopback().refusal("evil.example.com", "http://evil.example.com")).isEqualTo(HOST_REFUSED);
    }

    @Test
    void allowedOriginsMatchExactlyWithoutCaseAndToleratingATrailingSlash() {
      HostGuard guard = new HostGuard("127.0.0.1", null, List.of("https://App.Example", "http://tool.example:8443/"));

      assertThat(guard.refusal("localhost", "https://app.example")).isNull();
      assertThat(guard.refusal("localhost", "HTTPS://APP.EXAMPLE/")).isNull();
      assertThat(guard.refusal("localhost", "http://tool.example:8443")).isNull();
      assertThat(guard.refusal("localhost", "http://tool.example:8443/")).isNull();

      assertThat(guard.refusal("localhost", "http://app.example")).isEqualTo(ORIGIN_REFUSED); // other scheme
      assertThat(guard.refusal("localhost", "https://app.example:8443")).isEqualTo(ORIGIN_REFUSED); // other port
      assertThat(guard.refusal("localhost", "http://tool.example")).isEqualTo(ORIGIN_REFUSED);
      assertThat(guard.refusal("localhost", "https://sub.app.example")).isEqualTo(ORIGIN_REFUSED);
      assertThat(guard.refusal("localhost", "https://app.example.evil.com")).isEqualTo(ORIGIN_REFUSED);
    }

    @Test
    void theAllowedListIsCopiedAtConstruction() {
      List<String> allowed = new ArrayList<>(List.of("https://app.example"));
      HostGuard guard = new HostGuard("127.0.0.1", null, allowed);

      allowed.add("https://late.example");

      assertThat(guard.refusal("localhost", "https://late.example")).isEqualTo(ORIGIN_REFUSED);
    }

    @Test
    void thePublicUrlsOriginIsAllowedWithItsPort() {
      HostGuard guard = new HostGuard("0.0.0.0", URI.create("https://mcp.example.com:8443/base/"), List.of());

      assertThat(guard.refusal("mcp.example.com:8443", "https://mcp.example.com:8443")).isNull();
      assertThat(guard.refusal("mcp.example.com:8443", "https://MCP.example.com:8443/")).isNull();
      assertThat(guard.refusal("mcp.example.com:8443", "https://mcp.example.com")).isEqualTo(ORIGIN_REFUSED);
      assertThat(guard.refusal("mcp.example.com:8443", "http://mcp.example.com:8443")).isEqualTo(ORIGIN_REFUSED);
    }

    @Test
    void thePublicUrlsDefaultPortIsDroppedLikeBrowsersDo() {
      HostGuard https = new HostGuard("0.0.0.0", URI.create("https://mcp.example.com:443/base"), List.of());
      HostGuard http = new HostGuard("127.0.0.1", URI.create("http://localhost:80/x"), List.of());

      assertThat(https.refusal("mcp.example.com", "https://mcp.example.com")).isNull();
      assertThat(http.refusal("localhost", "http://localhost")).isNull();
    }
  }

  @Nested
  class Helpers {

    @ParameterizedTest
    @ValueSource(strings = {"localhost", "LOCALHOST", "foo.localhost", "127.0.0.1", "127.0.0.0", "127.255.255.255",
        "127.1.2.3", "::1", "[::1]", "0:0:0:0:0:0:0:1", "[0:0:0:0:0:0:0:1]"})
    void loopbackNames(String host) {
      assertThat(HostGuard.isLoopback(host)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "localhost.evil.com", "evillocalhost", "127.0.0.1.evil.com", "127.0.0", "127.0.0.256",
        "127.0.0.-1", "127.0.0.1a", "127..0.1", "128.0.0.1", "0.0.0.0", "::", "::2", "[::1", "127.example.com",
        "1270.0.0.1"})
    void notLoopbackNames(String host) {
      assertThat(HostGuard.isLoopback(host)).isFalse();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "localhost|localhost",
        "LocalHost:8080|localhost",
        "[::1]:80|::1",
        "[::1]|::1",
        "example.com.|example.com",
        "example.com.:443|example.com",
        " 127.0.0.1:9 |127.0.0.1",
        "a-b.example|a-b.example"})
    void hostNameDropsPortBracketsAndTheFinalDot(String header, String name) {
      assertThat(HostGuard.hostName(header)).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "[::1", "[::1]junk", "host:abc", "host:", "host:123456", "ho st", "host/x", "u@host",
        "h\"ost", "host\r\nX-Injected: 1", ".", "[]"})
    void hostNameIsNullForMalformedValues(String header) {
      assertThat(HostGuard.hostName(header)).isNull();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "https://mcp.example.com/base|https://mcp.example.com",
        "https://mcp.example.com:443/base|https://mcp.example.com",
        "http://h.example:80|http://h.example",
        "https://h.example:80|https://h.example:80",
        "http://h.example:443|http://h.example:443",
        "https://H.Example:8443/x?y|https://h.example:8443",
        "HTTP://[::1]:9000/mcp|http://[::1]:9000"})
    void originIsSchemeHostAndANonDefaultPort(String url, String origin) {
      assertThat(HostGuard.origin(URI.create(url))).isEqualTo(origin);
    }
  }
}
