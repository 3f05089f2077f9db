package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.mcpstdio.serve.BearerGate.Verdict;
import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class BearerGateTest {

  private static final String TOKEN = "s3cret-Token_value.42";

  private final BearerGate gate = new BearerGate(TOKEN, null, "/mcp");

  @Nested
  class Disabled {

    @ParameterizedTest
    @NullAndEmptySource
    void withoutATokenEveryRequestIsAllowed(String token) {
      BearerGate open = new BearerGate(token, null, "/mcp");

      assertThat(open.enabled()).isFalse();
      assertThat(open.check(null)).isEqualTo(Verdict.ALLOWED);
      assertThat(open.check("")).isEqualTo(Verdict.ALLOWED);
      assertThat(open.check("Basic dXNlcjpwdw==")).isEqualTo(Verdict.ALLOWED);
      assertThat(open.check("Bearer anything")).isEqualTo(Verdict.ALLOWED);
    }
  }

  @Nested
  class Check {

    @Test
    void aTokenTurnsTheGateOn() {
      assertThat(gate.enabled()).isTrue();
    }

    @Test
    void noHeaderIsMissing() {
      assertThat(gate.check(null)).isEqualTo(Verdict.MISSING);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "Basic dXNlcjpwdw==", "Token " + TOKEN, TOKEN, "Bearer", "Bearer ", "bearer   ",
        "Bearer\t" + TOKEN, "Bearer:" + TOKEN, "Bearer" + TOKEN, "Digest username=x"})
    void aHeaderWithoutABearerCredentialIsMissing(String header) {
      assertThat(gate.check(header)).isEqualTo(Verdict.MISSING);
    }

    @ParameterizedTest
    @ValueSource(strings = {"Bearer wrong", "Bearer " + TOKEN + "x", "Bearer x" + TOKEN, "Bearer s3cret-token_value.42",
        "Bearer " + TOKEN + " " + TOKEN, "Bearer s3cret", "Bearer \"" + TOKEN + "\""})
    void theWrongTokenIsInvalid(String header) {
      assertThat(gate.check(header)).isEqualTo(Verdict.INVALID);
    }

    @ParameterizedTest
    @ValueSource(strings = {"Bearer " + TOKEN, "bearer " + TOKEN, "BEARER " + TOKEN, "bEaReR " + TOKEN,
        "  Bearer " + TOKEN + "  ", "Bearer    " + TOKEN})
    void theRightTokenIsAllowedWhateverTheSchemesCase(String header) {
      assertThat(gate.check(header)).isEqualTo(Verdict.ALLOWED);
    }

    @Test
    void aOneCharacterTokenStillWorks() {
      BearerGate tiny = new BearerGate("x", null, "/mcp");

      assertThat(tiny.check("bearer x")).isEqualTo(Verdict.ALLOWED);
      assertThat(tiny.check("bearer y")).isEqualTo(Verdict.INVALID);
    }

    @Test
    void nonAsciiTokensAreComparedAsUtf8() {
      BearerGate unicode = new BearerGate("jeton-\u00e9t\u00e9", null, "/mcp");

      assertThat(unicode.check("Bearer jeton-\u00e9t\u00e9")).isEqualTo(Verdict.ALLOWED);
      assertThat(unicode.check("Bearer jeton-ete")).isEqualTo(Verdict.INVALID);
    }
  }

  @Nested
  class Challenge {

    @Test
    void aMissingTokenGetsOnlyTheMetadataPointer() {
      assertThat(gate.challenge(Verdict.MISSING, "http://127.0.0.1:8080", java.util.List.of()))
          .isEqualTo("Bearer resource_metadata=\"http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp\"");
    }

    @Test
    void anInvalidTokenGetsTheErrorAttributesToo() {
      assertThat(gate.challenge(Verdict.INVALID, "http://127.0.0.1:8080", java.util.List.of()))
          .isEqualTo("Bearer error=\"invalid_token\", error_description=\"the access token is not valid\", "
              + "resource_metadata=\"http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp\"");
    }

    @Test
    void theChallengeNeverContainsTheToken() {
      assertThat(gate.challenge(Verdict.INVALID, "http://localhost", java.util.List.of())).doesNotContain(TOKEN);
      assertThat(gate.challenge(Verdict.MISSING, "http://localhost", java.util.List.of())).doesNotContain(TOKEN);
    }

    @Test
    void thePublicUrlWinsOverTheRequestsOrigin() {
      BearerGate behindProxy = new BearerGate(TOKEN, URI.create("https://h.example/base/"), "/mcp");

      assertThat(behindProxy.challenge(Verdict.MISSING, "http://10.0.0.5:8080", java.util.List.of()))
          .isEqualTo("Bearer resource_metadata=\"https://h.example/.well-known/oauth-protected-resource/base/mcp\"");
    }
  }

  /** The top-level members of a JSON object, each as its JSON text (fails on anything not well-formed). */
  static Map<String, String> members(String document) throws IOException {
    Map<String, String> out = new LinkedHashMap<>();
    try (JsonParser p = new JsonFactory().createParser(document)) {
      assertThat(p.nextToken()).isEqualTo(JsonToken.START_OBJECT);
      for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if (value == JsonToken.START_ARRAY) {
          StringBuilder array = new StringBuilder("[");
          for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
            array.append(array.length() > 1 ? "," : "").append('"').append(p.getText()).append('"');
          }
          out.put(name, array.append(']').toString());
        } else {
          out.put(name, p.getText());
        }
      }
      assertThat(p.currentToken()).isEqualTo(JsonToken.END_OBJECT);
      assertThat(p.nextToken()).isNull();
    }
    return out;
  }

  @Nested
  class Metadata {

    @Test
    void withoutAPublicUrlTheRequestsOriginIsUsed() throws Exception {
      assertThat(gate.metadataUrl("http://localhost:8080"))
          .isEqualTo("http://localhost:8080/.well-known/oauth-protected-resource/mcp");

      Map<String, String> doc = members(gate.metadataDocument("http://localhost:8080", null, java.util.List.of()));
      assertThat(doc).containsExactly(
          Map.entry("resource", "http://localhost:8080/mcp"),
          Map.entry("bearer_methods_supported", "[\"header\"]"),
          Map.entry("resource_name", "mcp-stdio serve"));
    }

    @Test
    void aPublicUrlsPathIsAPrefixAfterTheWellKnownSegment() throws Exception {
      BearerGate behindProxy = new BearerGate(TOKEN, URI.create("https://h.example/base/"), "/mcp");

      assertThat(behindProxy.metadataUrl("http://ignored:1"))
          .isEqualTo("https://h.example/.well-known/oauth-protected-resource/base/mcp");
      assertThat(members(behindProxy.metadataDocument("http://ignored:1", null, java.util.List.of())).get("resource"))
          .isEqualTo("https://h.example/base/mcp");
    }

    @Test
    void aPublicUrlWithoutTrailingSlashGivesTheSamePrefix() throws Exception {
      BearerGate behindProxy = new BearerGate(TOKEN, URI.create("https://h.example/base"), "/mcp");

      assertThat(behindProxy.metadataUrl(null)).isEqualTo("https://h.example/.well-known/oauth-protected-resource/base/mcp");
      assertThat(members(behindProxy.metadataDocument(null, null, java.util.List.of())).get("resource"))
          .isEqualTo("https://h.example/base/mcp");
    }

    @Test
    void aPublicUrlWithoutPathAddsNoPrefix() throws Exception {
      for (String url : new String[] {"https://h.example", "https://h.example/"}) {
        BearerGate gateway = new BearerGate(TOKEN, URI.create(url), "/mcp");

        assertThat(gateway.metadataUrl(null)).as(url).isEqualTo("https://h.example/.well-known/oauth-protected-resource/mcp");
        assertThat(members(gateway.metadataDocument(null, null, java.util.List.of())).get("resource")).as(url)
            .isEqualTo("https://h.example/mcp");
      }
    }

    @Test
    void aPublicUrlKeepsANonDefaultPortAndDropsADefaultOne() {
      assertThat(new BearerGate(TOKEN, URI.create("https://h.example:8443/p"), "/mcp").metadataUrl(null))
          .isEqualTo("https://h.example:8443/.well-known/oauth-protected-resource/p/mcp");
      assertThat(new BearerGate(TOKEN, URI.create("https://h.example:443/p"), "/mcp").metadataUrl(null))
          .isEqualTo("https://h.example/.well-known/oauth-protected-resource/p/mcp");
    }

    @Test
    void aCustomEndpointPathIsUsed() {
      BearerGate custom = new BearerGate(TOKEN, null, "/api/v1/mcp");

      assertThat(custom.metadataUrl("https://a.example"))
          .isEqualTo("https://a.example/.well-known/oauth-protected-resource/api/v1/mcp");
      assertThat(custom.metadataDocument("https://a.example", null, java.util.List.of())).contains("\"resource\":\"https://a.example/api/v1/mcp\"");
    }

    @Test
    void theDocumentIsValidJsonAndServedEvenWithAuthenticationOff() throws Exception {
      BearerGate open = new BearerGate(null, null, "/mcp");

      assertThat(members(open.metadataDocument("http://[::1]:8080", null, java.util.List.of())).get("resource")).isEqualTo("http://[::1]:8080/mcp");
    }
  }
}
