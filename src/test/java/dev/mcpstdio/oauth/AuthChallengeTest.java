package dev.mcpstdio.oauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** WWW-Authenticate parsing: the MCP challenges, the grammar's corners, decoys, garbage and the bounds. */
class AuthChallengeTest {

  private static final String METADATA = "https://mcp.acme.test/.well-known/oauth-protected-resource/mcp";
  private static final String DISCOVERY =
      "Bearer resource_metadata=\"" + METADATA + "\", scope=\"orders:read\"";
  private static final String STEP_UP = "Bearer error=\"insufficient_scope\", scope=\"orders:write\", resource_metadata=\""
      + METADATA + "\", error_description=\"write access needed\"";

  private static AuthChallenge only(String header) {
    List<AuthChallenge> challenges = AuthChallenge.parse(header);
    assertThat(challenges).hasSize(1);
    return challenges.get(0);
  }

  @Test
  void mcpDiscoveryChallenge() {
    AuthChallenge c = only(DISCOVERY);
    assertThat(c.scheme()).isEqualTo("Bearer");
    assertThat(c.resourceMetadata()).isEqualTo(METADATA);
    assertThat(c.scope()).isEqualTo("orders:read");
    assertThat(c.error()).isNull();
    assertThat(c.errorDescription()).isNull();
    assertThat(c.token68()).isNull();
    assertThat(c.params()).containsOnlyKeys("resource_metadata", "scope");
  }

  @Test
  void mcpStepUpChallenge() {
    AuthChallenge c = only(STEP_UP);
    assertThat(c.error()).isEqualTo("insufficient_scope");
    assertThat(c.scope()).isEqualTo("orders:write");
    assertThat(c.resourceMetadata()).isEqualTo(METADATA);
    assertThat(c.errorDescription()).isEqualTo("write access needed");
    assertThat(c.params()).containsOnlyKeys("error", "scope", "resource_metadata", "error_description");
  }

  @Test
  void severalChallengesInOneValue() {
    List<AuthChallenge> challenges =
        AuthChallenge.parse("Negotiate abc==, Bearer realm=\"x\", error=\"insufficient_scope\", scope=\"a b\"");
    assertThat(challenges).containsExactly(
        new AuthChallenge("Negotiate", Map.of(), "abc=="),
        new AuthChallenge("Bearer", Map.of("realm", "x", "error", "insufficient_scope", "scope", "a b")));
  }

  @Test
  void challengesAcrossValuesKeepTheirOrder() {
    List<String> lines = Arrays.asList("Basic realm=\"r\"", null, "Bearer scope=\"first\"", "Bearer scope=\"second\"");
    assertThat(AuthChallenge.parseAll(lines)).extracting(AuthChallenge::scheme).containsExactly("Basic", "Bearer", "Bearer");
    assertThat(AuthChallenge.bearer(lines)).get().extracting(AuthChallenge::scope).isEqualTo("first");
    assertThat(AuthChallenge.bearer(List.of("Basic realm=\"r\"", "Negotiate"))).isEmpty();
  }

  @Test
  void schemeAndParameterNamesAreCaseInsensitiveButValuesAreNot() {
    AuthChallenge c = AuthChallenge.bearer(List.of("Basic realm=\"r\", bEaReR Scope=\"Orders:Read\", ERROR=Invalid_Token"))
        .orElseThrow();
    assertThat(c.scheme()).isEqualTo("bEaReR");
    assertThat(c.params()).containsOnlyKeys("scope", "error");
    assertThat(c.scope()).isEqualTo("Orders:Read");
    assertThat(c.param("SCOPE")).isEqualTo("Orders:Read");
    assertThat(c.error()).isEqualTo("Invalid_Token");
    assertThat(c.param(null)).isNull();
    assertThat(c.param("realm")).isNull();
  }

  @Test
  void quotedPairsAreUnescaped() {
    AuthChallenge c = only("Bearer error_description=\"a \\\"quoted\\\" \\\\ back\\slash, too\", realm=\"x\"");
    assertThat(c.errorDescription()).isEqualTo("a \"quoted\" \\ backslash, too");
    assertThat(c.param("realm")).isEqualTo("x");
  }

  @Test
  void unquotedValuesAreRead() {
    AuthChallenge c = only("Bearer error=invalid_token, scope=orders:read, realm = example.com ,resource_metadata="
        + METADATA);
    assertThat(c.error()).isEqualTo("invalid_token");
    assertThat(c.scope()).isEqualTo("orders:read");
    assertThat(c.param("realm")).isEqualTo("example.com");
    assertThat(c.resourceMetadata()).isEqualTo(METADATA);
    assertThat(only("Basic realm=x").params()).isEqualTo(Map.of("realm", "x"));
  }

  @Test
  void aScopeInsideAnotherParametersQuotedValueIsNeverPickedUp() {
    assertThat(only("Bearer error_description=\"try scope=\\\"admin\\\"\", scope=\"read\"").scope()).isEqualTo("read");
    assertThat(only("Bearer error_description=\"x, scope=\\\"admin\\\"\"").scope()).isNull();
    assertThat(only("Bearer error_description=\"x\\\", scope=admin\"").scope()).isNull();
    assertThat(only("Bearer error_scope=\"x\"").scope()).isNull();
    assertThat(only("Bearer error_scope=\"x\", scope_hint=\"y\"").params()).containsOnlyKeys("error_scope", "scope_hint");
    // nor a challenge inside one
    assertThat(AuthChallenge.bearer(List.of("Basic realm=\"a, Bearer scope=admin\""))).isEmpty();
    // nor in a malformed piece, which is skipped quote-aware
    assertThat(only("Bearer junk \"x, scope=admin, y\", scope=\"read\"").scope()).isEqualTo("read");
    // nor behind a quote opening inside an unquoted value
    assertThat(only("Bearer realm=a\"b, scope=admin\", scope=\"read\"").params()).isEqualTo(Map.of("scope", "read"));
  }

  @Test
  void theFirstOfADuplicateParameterWins() {
    assertThat(only("Bearer scope=\"a\", SCOPE=\"b\", scope=c").scope()).isEqualTo("a");
  }

  @Test
  void aNegotiateToken68BeforeABearerChallenge() {
    List<AuthChallenge> challenges = AuthChallenge.parse("Negotiate YIIabc==, Bearer scope=\"orders:read\"");
    assertThat(challenges).hasSize(2);
    assertThat(challenges.get(0).token68()).isEqualTo("YIIabc==");
    assertThat(challenges.get(0).params()).isEmpty();
    assertThat(challenges.get(1).scope()).isEqualTo("orders:read");
    assertThat(challenges.get(1).token68()).isNull();
    assertThat(only("Negotiate YII=").token68()).isEqualTo("YII=");
    assertThat(only("Negotiate a/b+c~d.e_f-g").token68()).isEqualTo("a/b+c~d.e_f-g");
    // the grammar gives a token68 challenge no parameters, so one after it is not taken
    assertThat(only("Negotiate YII=, scope=\"admin\"").params()).isEmpty();
  }

  @Test
  void afterACommaATokenAndEqualsIsAParameterAndAnyOtherTokenANewScheme() {
    assertThat(AuthChallenge.parse("Bearer realm=\"x\", scope = \"s\"")).containsExactly(
        new AuthChallenge("Bearer", Map.of("realm", "x", "scope", "s")));
    assertThat(AuthChallenge.parse("Bearer realm=\"x\", Other scope=\"s\"")).containsExactly(
        new AuthChallenge("Bearer", Map.of("realm", "x")), new AuthChallenge("Other", Map.of("scope", "s")));
    assertThat(AuthChallenge.parse("Negotiate, NTLM ,Bearer")).containsExactly(
        new AuthChallenge("Negotiate", Map.of()), new AuthChallenge("NTLM", Map.of()),
        new AuthChallenge("Bearer", Map.of()));
    assertThat(AuthChallenge.parse("Bearer realm=\"x\", Negotiate YII=")).containsExactly(
        new AuthChallenge("Bearer", Map.of("realm", "x")), new AuthChallenge("Negotiate", Map.of(), "YII="));
  }

  @Test
  void badPiecesAreSkippedAndTheRestStillRead() {
    assertThat(AuthChallenge.parse(",, \"junk\" , Bearer scope=\"read\",,")).containsExactly(
        new AuthChallenge("Bearer", Map.of("scope", "read")));
    // a parameter before any scheme belongs to no challenge
    assertThat(AuthChallenge.parse("realm=\"x\", Bearer scope=\"read\"")).containsExactly(
        new AuthChallenge("Bearer", Map.of("scope", "read")));
    assertThat(only("Bearer realm=\"x\" junk, scope=\"read\"").params()).isEqualTo(Map.of("scope", "read"));
    assertThat(only("Bearer error=\"e\", realm=, scope=\"read\"").params())
        .isEqualTo(Map.of("error", "e", "scope", "read"));
    assertThat(only("Bearer error=\"e\", realm =\t, scope=\"read\"").params())
        .isEqualTo(Map.of("error", "e", "scope", "read"));
    // first after the scheme, the same text is what the grammar makes it: a token68, which takes no parameters
    assertThat(only("Bearer realm=, scope=\"read\"")).isEqualTo(new AuthChallenge("Bearer", Map.of(), "realm="));
    assertThat(only("Bearer ;;, scope=\"read\"").params()).isEqualTo(Map.of("scope", "read"));
    assertThat(only("Bearer foo bar, scope=\"read\"").params()).isEqualTo(Map.of("scope", "read"));
    assertThat(only("Bearer scope=\"a\u0000b\", error=\"e\"").params()).isEqualTo(Map.of("error", "e"));
    assertThat(only("Bearer scope=\"unterminated, error=\"e\"").params()).isEmpty();
    assertThat(only("Bearer scope=\"ends in a backslash\\").params()).isEmpty();
    // a malformed challenge keeps the parameters after it from the challenge before it
    assertThat(AuthChallenge.parse("Basic realm=\"r\", Bearer;x, scope=\"admin\"")).containsExactly(
        new AuthChallenge("Basic", Map.of("realm", "r")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", ",", "\"", "\\", "=", "Bearer \"", "Bearer scope=\"", "Bearer scope=\"\\", "Bearer ,=,",
      "Bearer scope", "Bearer scope=", "Negotiate =", "\u0000", "Bearer\u0000", "\"a\\\"", ", , ,", "Bearer a=b=c",
      "Bearer \u00e9=\u00e9", "\uD800", "Bearer scope=\uD83D\uDE00"})
  void garbageNeverThrows(String header) {
    assertWellFormed(AuthChallenge.parse(header));
    assertThat(AuthChallenge.bearer(List.of(header))).isNotNull();
  }

  @Test
  void nullInputsGiveNothing() {
    assertThat(AuthChallenge.parse(null)).isEmpty();
    assertThat(AuthChallenge.parseAll(null)).isEmpty();
    assertThat(AuthChallenge.parseAll(Arrays.asList(null, null))).isEmpty();
    assertThat(AuthChallenge.bearer(null)).isEmpty();
  }

  @Test
  void aTruncatedHeaderNeverYieldsAValueTheWholeOneDoesNotHave() {
    for (String header : List.of(DISCOVERY, STEP_UP)) {
      Map<String, String> whole = only(header).params();
      for (int end = 0; end <= header.length(); end++) {
        for (AuthChallenge c : AuthChallenge.parse(header.substring(0, end))) {
          assertThat(whole).containsAllEntriesOf(c.params());
        }
      }
    }
  }

  @Test
  void resultsAreImmutable() {
    AuthChallenge c = only(DISCOVERY);
    assertThatThrownBy(() -> c.params().put("scope", "admin")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> AuthChallenge.parse(DISCOVERY).clear()).isInstanceOf(UnsupportedOperationException.class);
    Map<String, String> source = new LinkedHashMap<>(Map.of("Scope", "x"));
    AuthChallenge built = new AuthChallenge("Bearer", source);
    source.put("scope", "admin");
    assertThat(built.params()).isEqualTo(Map.of("scope", "x"));
    assertThat(built.scope()).isEqualTo("x");
    Map<String, String> clashing = new LinkedHashMap<>();
    clashing.put("SCOPE", "first");
    clashing.put("scope", "second");
    assertThat(new AuthChallenge("Bearer", clashing).params()).isEqualTo(Map.of("scope", "first"));
  }

  @Test
  void aHeaderOfExactly16KibIsReadWhole() {
    String header = padded("Bearer scope=\"read\", pad=\"", "\", error=\"e\"", 16 * 1024);
    assertThat(only(header).error()).isEqualTo("e");
  }

  @Test
  void nothingPast16KibIsReadAndThePieceTheBoundCutsIsDropped() {
    String header = padded("Bearer scope=\"read\", pad=\"", "\", error=\"e\"", 16 * 1024 + 1);
    assertThat(only(header).params()).containsOnlyKeys("scope", "pad");

    String cutUnquoted = padded("Bearer scope=\"read\", realm=", "", 20_000);
    assertThat(only(cutUnquoted).params()).containsOnlyKeys("scope");
    String cutQuoted = padded("Bearer scope=\"read\", realm=\"", "\"", 20_000);
    assertThat(only(cutQuoted).params()).containsOnlyKeys("scope");
    String laterChallenge = padded("Basic realm=\"", "\", Bearer scope=\"read\"", 20_000);
    assertThat(AuthChallenge.parse(laterChallenge)).isEmpty();
    assertThat(AuthChallenge.parse(padded("Negotiate ", "", 20_000))).isEmpty();
  }

  @Test
  void aHugeHostileHeaderIsCheap() {
    String hostile = ",\"\\".repeat(3 << 20) + "Bearer a=\"" + "x=\\\"".repeat(1 << 20);
    assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
      for (int i = 0; i < 100; i++) {
        assertWellFormed(AuthChallenge.parse(hostile));
      }
    });
  }

  @Test
  void aChallengeKeepsAtMost64Parameters() {
    StringBuilder header = new StringBuilder("Bearer");
    for (int i = 0; i < 100; i++) {
      header.append(i == 0 ? " " : ", ").append('p').append(i).append("=\"v").append(i).append('"');
    }
    header.append(", Negotiate abc==, Basic realm=\"r\"");
    List<AuthChallenge> challenges = AuthChallenge.parse(header.toString());
    assertThat(challenges).extracting(AuthChallenge::scheme).containsExactly("Bearer", "Negotiate", "Basic");
    Map<String, String> params = challenges.get(0).params();
    assertThat(params).hasSize(64);
    assertThat(params).containsEntry("p0", "v0").containsEntry("p63", "v63").doesNotContainKey("p64");
    assertThat(challenges.get(2).param("realm")).isEqualTo("r");
  }

  // --- properties

  @Property(tries = 1000)
  void anyStringParsesWithoutThrowing(@ForAll String header, @ForAll String other) {
    assertWellFormed(AuthChallenge.parse(header));
    assertWellFormed(AuthChallenge.parseAll(List.of(header, other)));
  }

  @Property(tries = 3000)
  void structuralNoiseParsesWithoutThrowing(@ForAll("noise") String header) {
    assertWellFormed(AuthChallenge.parse(header));
    assertThat(AuthChallenge.bearer(List.of(header))).isNotNull();
  }

  @Property(tries = 1000)
  void anythingQuotedInADescriptionStaysThere(@ForAll("noise") String description) {
    AuthChallenge c = only("Bearer error_description=\"" + quote(description) + "\", scope=\"read\"");
    // a control character is outside the grammar and costs the description, never the scope
    boolean clean = description.chars().noneMatch(ch -> ch < ' ' && ch != '\t');
    assertThat(c.params()).isEqualTo(
        clean ? Map.of("error_description", description, "scope", "read") : Map.of("scope", "read"));
  }

  @Property(tries = 1000)
  void serialisedChallengesParseBackToThemselves(@ForAll("challenges") List<AuthChallenge> challenges,
      @ForAll("separators") String separator, @ForAll("whitespace") String around) {
    StringBuilder header = new StringBuilder();
    for (AuthChallenge c : challenges) {
      if (!header.isEmpty()) {
        header.append(separator);
      }
      header.append(c.scheme());
      String between = " ";
      for (Map.Entry<String, String> p : c.params().entrySet()) {
        header.append(between).append(p.getKey().toUpperCase(Locale.ROOT)).append(around).append('=').append(around)
            .append('"').append(quote(p.getValue())).append('"');
        between = separator;
      }
    }
    assertThat(AuthChallenge.parse(header.toString())).isEqualTo(challenges);
  }

  @Provide
  Arbitrary<String> noise() {
    return Arbitraries.of("Bearer", "Negotiate", " ", "\t", ",", "=", "==", "\"", "\\", "scope", "abc", "/", ";", "é",
            "\u0000", "\r\n", "漢", "\uD83D\uDE00", "x")
        .list()
        .ofMaxSize(30)
        .map(parts -> String.join("", parts));
  }

  @Provide
  Arbitrary<List<AuthChallenge>> challenges() {
    Arbitrary<String> token = Arbitraries.strings().withChars("aZ09!#$%&'*+-.^_`|~").ofMinLength(1).ofMaxLength(6);
    Arbitrary<String> value = Arbitraries.of("a", " ", "\t", ",", "=", "\"", "\\", "scope=", "Bearer ", "é", "漢", "==")
        .list()
        .ofMaxSize(6)
        .map(parts -> String.join("", parts));
    Arbitrary<Map<String, String>> params = Combinators.combine(token, value).as(Map::entry)
        .list()
        .ofMaxSize(5)
        .uniqueElements(e -> e.getKey().toLowerCase(Locale.ROOT))
        .map(entries -> {
          Map<String, String> map = new LinkedHashMap<>();
          entries.forEach(e -> map.put(e.getKey().toLowerCase(Locale.ROOT), e.getValue()));
          return map;
        });
    return Combinators.combine(token, params).as(AuthChallenge::new).list().ofMaxSize(4);
  }

  @Provide
  Arbitrary<String> separators() {
    return Arbitraries.of(",", ", ", " ,\t", ", ,", ",,");
  }

  @Provide
  Arbitrary<String> whitespace() {
    return Arbitraries.of("", " ", "\t ");
  }

  private static String quote(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  /** {@code head + "y"... + tail}, exactly {@code length} long. */
  private static String padded(String head, String tail, int length) {
    String header = head + "y".repeat(length - head.length() - tail.length()) + tail;
    assertThat(header).hasSize(length);
    return header;
  }

  private static void assertWellFormed(List<AuthChallenge> challenges) {
    List<String> problems = new ArrayList<>();
    for (AuthChallenge c : challenges) {
      if (c.scheme().isEmpty() || !c.scheme().chars().allMatch(ch -> ch < 128 && ch > ' ' && "\",;=\\".indexOf(ch) < 0)) {
        problems.add("scheme " + c.scheme());
      }
      if (c.params().size() > 64) {
        problems.add("params " + c.params().size());
      }
      if (c.token68() != null && !c.params().isEmpty()) {
        problems.add("token68 with params");
      }
      c.params().keySet().stream().filter(k -> !k.equals(k.toLowerCase(Locale.ROOT))).forEach(k -> problems.add("key " + k));
    }
    assertThat(problems).isEmpty();
  }
}
