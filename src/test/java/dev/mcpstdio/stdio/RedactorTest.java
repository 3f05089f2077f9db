package dev.mcpstdio.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RedactorTest {

  final Redactor redactor = new Redactor();

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "https://user:pw@example.com/mcp | https://example.com/mcp",
        "https://user@example.com | https://example.com",
        "http://a:b@host:8080/p/q | http://host:8080/p/q",
        "https://u:p@ss@host/x | https://host/x",
        "https://example.com/mcp?api_key=SECRET | https://example.com/mcp?<redacted>",
        "https://example.com?token=abc&x=1 | https://example.com?<redacted>",
        "https://example.com/p?k=v#frag | https://example.com/p?<redacted>#frag",
        "https://u:p@example.com/p?k=v | https://example.com/p?<redacted>",
        "https://example.com/a/b#c | https://example.com/a/b#c",
        "wss://x:y@h/s | wss://h/s",
        "no url here | no url here",
        "https://example.com/path | https://example.com/path",
        "https://example.com/users/@me | https://example.com/users/@me",
      })
  void urls(String in, String out) {
    assertThat(redactor.scrub(in)).isEqualTo(out);
  }

  @Test
  void severalUrlsInOneLine() {
    String in =
        "connecting to https://alice:s3cret@a.example/mcp?key=K1 via http://proxy-user:pp@proxy:3128, "
            + "fallback \"https://b.example/x?code=C2\" and <http://c.example/?q=1>";
    String out = redactor.scrub(in);
    assertThat(out)
        .isEqualTo(
            "connecting to https://a.example/mcp?<redacted> via http://proxy:3128, "
                + "fallback \"https://b.example/x?<redacted>\" and <http://c.example/?<redacted>>");
    assertThat(out).doesNotContain("s3cret", "alice", "K1", "pp@", "C2", "q=1");
  }

  @Test
  void urlEndsAtWhitespaceAndQuotes() {
    assertThat(redactor.scrub("'https://x.test/?a=1' next\tword `https://u:p@y.test` end"))
        .isEqualTo("'https://x.test/?<redacted>' next\tword `https://y.test` end");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "Authorization: Bearer abc.def-ghi_jkl | Authorization: Bearer <redacted>",
        "authorization: bearer xyz== | authorization: bearer <redacted>",
        "BEARER   spaced | BEARER   <redacted>",
        "got Bearer eyJhbGciOi.eyJzdWIi.sig, retrying | got Bearer <redacted>, retrying",
        "Bearer a Bearer b | Bearer <redacted> Bearer <redacted>",
        "bearer | bearer",
        "'the bearer ' | 'the bearer '",
        "token=Bearer%20abc | token=Bearer%20abc",
      })
  void bearerTokens(String in, String out) {
    assertThat(redactor.scrub(in)).isEqualTo(out);
  }

  @Test
  void bearerTokenCharactersAreAllCovered() {
    String token = "aZ09-._~+/=:%";
    assertThat(redactor.scrub("Bearer " + token + " tail")).isEqualTo("Bearer <redacted> tail");
  }

  @Test
  void registeredSecretsAreReplacedEverywhere() {
    redactor.addSecret("tok-1234567");
    redactor.addSecret("hunter2!");
    String out = redactor.scrub("a tok-1234567 b {\"h\":\"hunter2!\"} tok-1234567tok-1234567");
    assertThat(out).isEqualTo("a <redacted> b {\"h\":\"<redacted>\"} <redacted><redacted>");
  }

  @Test
  void shortAndNullSecretsAreIgnored() {
    redactor.addSecret("abc");
    redactor.addSecret(null);
    redactor.addSecret("");
    assertThat(redactor.scrub("abc abcd")).isEqualTo("abc abcd");
  }

  @Test
  void aSecretRegisteredTwiceStaysUntilBothRegistrationsAreGivenUp() {
    redactor.addSecret("shared-credential"); // the configuration's, or a first session's
    redactor.addSecret("shared-credential"); // a second session handed the same value
    redactor.removeSecret("shared-credential"); // the second session ends
    assertThat(redactor.scrub("x shared-credential y")).isEqualTo("x <redacted> y");
    redactor.removeSecret("shared-credential");
    assertThat(redactor.scrub("x shared-credential y")).isEqualTo("x shared-credential y");
    redactor.removeSecret("never-registered"); // harmless
    redactor.removeSecret(null);
  }

  @Test
  void secretAddedTwiceIsHarmless() {
    redactor.addSecret("sekrit");
    redactor.addSecret("sekrit");
    assertThat(redactor.scrub("x sekrit y")).isEqualTo("x <redacted> y");
  }

  @Test
  void secretInsideAUrlIsRedactedToo() {
    redactor.addSecret("my-api-key");
    assertThat(redactor.scrub("https://host/my-api-key/path")).isEqualTo("https://host/<redacted>/path");
  }

  @Test
  void nullAndEmpty() {
    assertThat(redactor.scrub(null)).isEqualTo("null");
    assertThat(redactor.scrub("")).isEmpty();
  }

  @Test
  void schemeSeparatorAtTheEnd() {
    assertThat(redactor.scrub("weird ://")).isEqualTo("weird ://");
    assertThat(redactor.scrub("https://")).isEqualTo("https://");
    assertThat(redactor.scrub("https://@")).isEqualTo("https://");
  }

  // ---- ReDoS safety: each hostile 200 KB input scrubs in well under a second ---------------

  @Test
  @Timeout(10)
  void hostileSchemeSeparators() {
    assertFast("://".repeat(70_000));
    assertFast(":// ".repeat(50_000));
    assertFast("://@".repeat(50_000));
    assertFast("://?".repeat(50_000));
    assertFast("://a@b?".repeat(30_000));
    assertFast("https://x".repeat(25_000));
  }

  @Test
  @Timeout(10)
  void hostileBearers() {
    assertFast("bearer ".repeat(30_000));
    assertFast("Bearer x ".repeat(25_000));
    assertFast("bearer".repeat(35_000));
    assertFast("b".repeat(200_000));
    assertFast(("bearer " + " ".repeat(100)).repeat(2_000));
  }

  @Test
  @Timeout(10)
  void hostileWithManySecrets() {
    for (int i = 0; i < 50; i++) {
      redactor.addSecret("secret-" + i + "-xxxxxxxx");
    }
    assertFast("secret-1-xxxxxxx".repeat(13_000));
  }

  /**
   * A linear scan of 200 KB takes milliseconds once compiled (about 0.1 s interpreted); any
   * backtracking or rescanning would take minutes. The bound is each test's {@code @Timeout}: far
   * above a linear scan on a loaded machine, far below a quadratic one, so it fails only on the
   * defect it is there for (a per-call limit of 0.5 s failed on a busy CI machine).
   */
  private void assertFast(String hostile) {
    assertThat(hostile.length()).isGreaterThanOrEqualTo(190_000);
    String out = redactor.scrub(hostile);
    assertThat(out).isNotNull();
  }

  @Test
  void hostileBearerOutputIsStillRedacted() {
    String out = redactor.scrub("Bearer x ".repeat(1000));
    assertThat(out).doesNotContain("Bearer x");
    assertThat(out).isEqualTo("Bearer <redacted> ".repeat(1000));
  }

  @Test
  void bearerFollowedByATabIsRedactedToo() {
    assertThat(new Redactor().scrub("Authorization: Bearer\tsecret-token-1")).isEqualTo("Authorization: Bearer\t<redacted>");
    assertThat(new Redactor().scrub("a bearertoken word")).isEqualTo("a bearertoken word");
  }
}
