package dev.mcpstdio.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Token endpoint answers as servers really send them. */
class TokenResponseTest {

  private static TokenResponse parse(int status, String type, String body) {
    return TokenResponse.parse(status, type, body.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aJsonGrantIsReadWhole() {
    TokenResponse r = parse(200, "application/json; charset=utf-8", """
        {"access_token":"at-1","token_type":"bearer","expires_in":3600,"refresh_token":"rt-1","scope":"a b","id_token":"idt",
         "extra":{"nested":[1]}}""");
    assertThat(r).isEqualTo(new TokenResponse.Granted("at-1", "bearer", 3600L, "rt-1", "a b", "idt", java.util.List.of()));
    assertThat(r.toString()).doesNotContain("at-1", "rt-1");
  }

  @Test
  void aFormEncodedGrantIsReadAndTheFirstOfRepeatedKeysWins() {
    TokenResponse r = parse(200, "application/x-www-form-urlencoded",
        "access_token=gho_abc%2B1&scope=repo%2Cgist&token_type=bearer&access_token=second");
    assertThat(r).isInstanceOfSatisfying(TokenResponse.Granted.class, g -> {
      assertThat(g.accessToken()).isEqualTo("gho_abc+1");
      assertThat(g.scope()).isEqualTo("repo,gist");
      assertThat(g.expiresIn()).isNull();
      assertThat(g.refreshToken()).isNull();
    });
  }

  @Test
  void lifetimesAreCoercedAndUnusableOnesMeanNoExpiryWithAWarning() {
    assertThat(((TokenResponse.Granted) parse(200, "application/json", "{\"access_token\":\"a\",\"expires_in\":\"120\"}"))
        .expiresIn()).isEqualTo(120L);
    for (String bad : new String[] {"0", "-5", "\"soon\"", "1e400", "true"}) {
      TokenResponse.Granted g = (TokenResponse.Granted) parse(200, "application/json", "{\"access_token\":\"a\",\"expires_in\":" + bad + "}");
      assertThat(g.expiresIn()).as(bad).isNull();
      assertThat(g.warnings()).as(bad).singleElement().asString().contains("not expiring");
    }
  }

  @Test
  void aMissingOrOddTokenTypeIsSentAsBearer() {
    assertThat(((TokenResponse.Granted) parse(200, "application/json", "{\"access_token\":\"a\",\"token_type\":null}")).tokenType())
        .isEqualTo("Bearer");
    TokenResponse.Granted mac = (TokenResponse.Granted) parse(200, "application/json", "{\"access_token\":\"a\",\"token_type\":\"mac\"}");
    assertThat(mac.tokenType()).isEqualTo("Bearer");
    assertThat(mac.warnings()).singleElement().asString().contains("mac");
  }

  @Test
  void errorsAreRefusalsEvenInA200AndWhatTheServerWroteIsSanitised() {
    assertThat(parse(400, "application/json", "{\"error\":\"invalid_grant\",\"error_description\":\"refresh token \\\"expired\\\"\\n\"}"))
        .isEqualTo(new TokenResponse.Refused(400, "invalid_grant", "refresh token ?expired??"));
    TokenResponse.Refused inA200 = (TokenResponse.Refused) parse(200, "application/x-www-form-urlencoded",
        "error=bad_verification_code&error_description=" + "x".repeat(500));
    assertThat(inA200.error()).isEqualTo("bad_verification_code");
    assertThat(inA200.description()).hasSize(TokenResponse.MAX_SHOWN);
    assertThat(inA200.retryable()).isFalse();
    assertThat(((TokenResponse.Refused) parse(400, "application/json", "{\"error\":\"temporarily_unavailable\"}")).retryable()).isTrue();
    assertThat(((TokenResponse.Refused) parse(503, "text/html", "<html>busy</html>")).retryable()).isTrue();
    assertThat(((TokenResponse.Refused) parse(400, "application/json", "{\"error\":\"invalid_client\"}")).describe())
        .isEqualTo("invalid_client (HTTP 400)");
  }

  @Test
  void unusableAnswersSayWhyWithoutEchoingTheBody() {
    assertThat(parse(200, "text/html", "<html>access_token=leak</html>")).isInstanceOfSatisfying(TokenResponse.Unusable.class,
        u -> assertThat(u.reason()).contains("text/html").doesNotContain("leak"));
    assertThat(parse(200, "application/json", "[1,2]")).isInstanceOf(TokenResponse.Unusable.class);
    assertThat(parse(200, "application/json", "{\"access_token\":\"a\"} trailing")).isInstanceOf(TokenResponse.Unusable.class);
    assertThat(parse(200, "application/json", "{\"token_type\":\"bearer\"}")).isInstanceOfSatisfying(TokenResponse.Unusable.class,
        u -> assertThat(u.reason()).contains("no access_token"));
    assertThat(parse(200, "application/json", "{\"access_token\":\"a\\r\\nX-Evil: 1\"}")).isInstanceOfSatisfying(
        TokenResponse.Unusable.class, u -> assertThat(u.reason()).contains("a header cannot carry").doesNotContain("Evil"));
    assertThat(parse(200, "application/json", "{\"access_token\":\"tok\u2028X\"}")).isInstanceOf(TokenResponse.Unusable.class);
    assertThat(parse(200, "application/json", "{\"access_token\":\"t o k\"}")).isInstanceOf(TokenResponse.Unusable.class);
    assertThat(parse(200, null, "{}")).isInstanceOf(TokenResponse.Unusable.class);
  }
}
