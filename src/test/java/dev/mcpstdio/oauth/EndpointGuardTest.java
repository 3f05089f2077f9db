package dev.mcpstdio.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The SSRF and plaintext guards on every URL discovery hands the client, and PKCE. */
class EndpointGuardTest {

  @ParameterizedTest
  @ValueSource(strings = {"localhost", "LOCALHOST", "localhost.", "127.0.0.1", "127.255.10.3", "[::1]", "::1",
      "0:0:0:0:0:0:0:1", "[0000:0000:0000:0000:0000:0000:0000:0001]", "::0:1", "::ffff:127.0.0.1", "[::FFFF:127.1.2.3]"})
  void loopbackHostsAreKnownByName(String host) {
    assertThat(EndpointGuard.isLoopback(host)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"example.com", "localhost.example.com", "mylocalhost", "128.0.0.1", "126.255.255.255",
      "127.0.0", "127.0.0.1.evil.com", "0127.0.0.1", "127.0.0.256", "::2", "::", "1::1", "::1%eth0", "fe80::1",
      "::ffff:128.0.0.1", "0:0:0:0:0:0:0:0:1", "::1::", "10.0.0.1", "169.254.169.254"})
  void otherHostsAreNot(String host) {
    assertThat(EndpointGuard.isLoopback(host)).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"https://as.example/token", "https://10.0.0.5:8443/oauth/token", "http://127.0.0.1:9000/token",
      "http://localhost/authorize", "http://[::1]:8080/x", "HTTPS://AS.example/t"})
  void usableEndpointsPass(String url) {
    assertThat(EndpointGuard.refusal(url)).isNull();
  }

  @Test
  void unsafeEndpointsAreRefusedWithTheReason() {
    assertThat(EndpointGuard.refusal("http://as.example/token")).contains("plain http");
    assertThat(EndpointGuard.refusal("http://169.254.169.254/latest")).contains("plain http");
    assertThat(EndpointGuard.refusal("https://user:pw@as.example/token")).contains("userinfo");
    assertThat(EndpointGuard.refusal("https://as.example@evil.example/token")).contains("userinfo");
    assertThat(EndpointGuard.refusal("ftp://as.example/token")).contains("not http");
    assertThat(EndpointGuard.refusal("javascript:alert(1)")).contains("not http");
    assertThat(EndpointGuard.refusal("//as.example/token")).contains("not http");
    assertThat(EndpointGuard.refusal("https://as.example:notaport/token")).isNotNull();
    assertThat(EndpointGuard.refusal("https://as.example:99999/token")).isNotNull();
    assertThat(EndpointGuard.refusal("not a url at all")).isNotNull();
    assertThat(EndpointGuard.refusal("")).isNotNull();
    assertThat(EndpointGuard.refusal(null)).isNotNull();
  }

  @Test
  void pkceIsS256OverAnEightySixCharacterVerifierAndFreshEachTime() {
    Pkce a = Pkce.create();
    Pkce b = Pkce.create();
    assertThat(a.verifier()).hasSize(86).matches("[A-Za-z0-9_-]+").isNotEqualTo(b.verifier());
    assertThat(a.challenge()).hasSize(43).matches("[A-Za-z0-9_-]+");
    // computed independently: base64.urlsafe_b64encode(hashlib.sha256(v).digest()).rstrip(b"=") in Python
    assertThat(Pkce.challengeOf("dBjftJeZ4CVP-mJ92K27uhbUJU1p1r_wW1gFWFOEjXk")).isEqualTo("ngF5GsXcbwljx6u133FFr3Xht9xooA_DuaX_3QwODtc");
    assertThat(a.toString()).doesNotContain(a.verifier());
    String state = Pkce.newState();
    assertThat(state).hasSize(43);
    assertThat(Pkce.sameState(state, state)).isTrue();
    assertThat(Pkce.sameState(state, state + "x")).isFalse();
    assertThat(Pkce.sameState(state, null)).isFalse();
  }
}
