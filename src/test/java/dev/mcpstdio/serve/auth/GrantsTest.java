package dev.mcpstdio.serve.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.oauth.Pkce;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The embedded authorization server's rules, each with the hostile input it must withstand. */
class GrantsTest {

  private static final String RESOURCE = "https://gw.example/mcp";
  private static final String REDIRECT = "http://127.0.0.1:53682/callback";
  private static final String HOSTED = "https://claude.ai/api/mcp/auth_callback";

  private final AtomicLong now = new AtomicLong(1_700_000_000_000L);
  private final Grants grants = new Grants(GrantSettings.DEFAULTS, Set.of(HOSTED), now::get);
  private final Pkce pkce = Pkce.create();

  private RegisteredClient client() throws Grants.RegistrationRefused {
    return grants.register(List.of(REDIRECT));
  }

  private AuthorizationRequest request(RegisteredClient c) {
    return new AuthorizationRequest(c.clientId(), REDIRECT, "code", pkce.challenge(), "S256", "mcp", RESOURCE, "alice");
  }

  private String code(RegisteredClient c) {
    AuthorizeOutcome o = grants.authorize(request(c), RESOURCE);
    assertThat(o).isInstanceOf(AuthorizeOutcome.Issued.class);
    return ((AuthorizeOutcome.Issued) o).code();
  }

  private Map<String, String> redeem(RegisteredClient c, String code) {
    Map<String, String> form = new HashMap<>(Map.of("grant_type", "authorization_code", "code", code,
        "client_id", c.clientId(), "redirect_uri", REDIRECT, "code_verifier", pkce.verifier()));
    return form;
  }

  private TokenOutcome.Issued tokens(RegisteredClient c) {
    TokenOutcome o = grants.token(redeem(c, code(c)));
    assertThat(o).isInstanceOf(TokenOutcome.Issued.class);
    return (TokenOutcome.Issued) o;
  }

  private static Map<String, String> refreshForm(RegisteredClient c, String refresh) {
    return new HashMap<>(Map.of("grant_type", "refresh_token", "refresh_token", refresh, "client_id", c.clientId()));
  }

  private static void assertFailed(TokenOutcome o, String error, String description) {
    assertThat(o).isInstanceOf(TokenOutcome.Failed.class);
    assertThat(((TokenOutcome.Failed) o).error()).isEqualTo(error);
    assertThat(((TokenOutcome.Failed) o).description()).contains(description);
  }

  @Nested
  class Registration {

    @Test
    void loopbackAndAllowedRedirectUrisAreRegistered() throws Exception {
      assertThatThrownBy(() -> grants.register(java.util.Collections.nCopies(11, REDIRECT)))
          .isInstanceOfSatisfying(Grants.RegistrationRefused.class, e -> assertThat(e.error()).isEqualTo("invalid_client_metadata"));
      for (String uri : List.of("http://127.0.0.1/cb", "http://127.0.0.1:8080/cb", "http://[::1]:9/x", "http://localhost:3000/oauth/callback", HOSTED)) {
        RegisteredClient c = grants.register(List.of(uri));
        assertThat(c.clientId()).hasSize(43);
        assertThat(grants.client(c.clientId())).isEqualTo(c);
      }
    }

    @Test
    void everyOtherRedirectUriIsRefused() {
      for (String uri : List.of("https://evil.example/cb", "http://127.0.0.1.evil.example/cb", "http://localhost@evil.example/cb",
          "http://evil.example@127.0.0.1/cb", "http://127.0.0.1/cb?next=x", "http://127.0.0.1/cb#f", "http://127.0.0.1/c b",
          "http://127.0.0.1/cb\r\nX: y", "https://127.0.0.1/cb", "http://LOCALHOST/cb", HOSTED + "x", HOSTED.replace("https", "http"),
          "http://127.0.0.1\\@evil.example/", "javascript:alert(1)", "", "http://127.0.0.1:8080/a/../cb", "http://[::1%25lo]/cb",
          "http://127.0.0.1./cb", "http://127.0.0.1:/cb")) {
        assertThatThrownBy(() -> grants.register(List.of(uri))).as(uri)
            .isInstanceOfSatisfying(Grants.RegistrationRefused.class, e -> assertThat(e.error()).isEqualTo("invalid_redirect_uri"));
      }
    }

    @Test
    void noRedirectUrisIsInvalidMetadata() {
      assertThatThrownBy(() -> grants.register(List.of()))
          .isInstanceOfSatisfying(Grants.RegistrationRefused.class, e -> assertThat(e.error()).isEqualTo("invalid_client_metadata"));
      assertThatThrownBy(() -> grants.register(null)).isInstanceOf(Grants.RegistrationRefused.class);
    }

    @Test
    void theRefusalShowsTheUriEscapedAndCut() {
      String uri = "http://evil.example/\u0001" + "a".repeat(500);
      assertThatThrownBy(() -> grants.register(List.of(uri))).hasMessageContaining("\\x01").hasMessageEndingWith("...")
          .satisfies(e -> assertThat(e.getMessage().length()).isLessThan(320));
    }

    @Test
    void aFloodOfRegistrationsPushesOutNoClientSomeoneIsSignedInWith() throws Exception {
      Grants small = new Grants(new GrantSettings(Duration.ofHours(1), Duration.ofSeconds(60), Duration.ofDays(30),
          Duration.ofSeconds(10), 3, 10), Set.of(), now::get);
      RegisteredClient used = small.register(List.of(REDIRECT));
      AuthorizationRequest r = new AuthorizationRequest(used.clientId(), REDIRECT, "code", pkce.challenge(), "S256", null, null, "alice");
      String code = ((AuthorizeOutcome.Issued) small.authorize(r, RESOURCE)).code();
      assertThat(small.token(redeem(used, code))).isInstanceOf(TokenOutcome.Issued.class);
      for (int i = 0; i < 20; i++) {
        small.register(List.of(REDIRECT));
      }
      assertThat(small.client(used.clientId())).as("the client alice is signed in with").isEqualTo(used);
    }

    @Test
    void atTheClientBoundTheOldestRegistrationMakesRoom() throws Exception {
      Grants small = new Grants(new GrantSettings(Duration.ofHours(1), Duration.ofSeconds(60), Duration.ofDays(30),
          Duration.ofSeconds(10), 2, 10), Set.of(), now::get);
      RegisteredClient first = small.register(List.of(REDIRECT));
      RegisteredClient second = small.register(List.of(REDIRECT));
      RegisteredClient third = small.register(List.of(REDIRECT));
      assertThat(small.client(first.clientId())).isNull();
      assertThat(small.client(second.clientId())).isEqualTo(second);
      assertThat(small.client(third.clientId())).isEqualTo(third);
    }
  }

  @Nested
  class Authorization {

    @Test
    void anUnknownClientOrARedirectUriOneCharacterOffIsRefusedWithoutRedirect() throws Exception {
      RegisteredClient c = client();
      AuthorizationRequest r = request(c);
      assertThat(grants.authorize(new AuthorizationRequest("nope", REDIRECT, "code", pkce.challenge(), "S256", null, null, "alice"), RESOURCE))
          .isInstanceOf(AuthorizeOutcome.Refused.class);
      assertThat(grants.authorize(new AuthorizationRequest(null, REDIRECT, "code", pkce.challenge(), "S256", null, null, "alice"), RESOURCE))
          .isInstanceOf(AuthorizeOutcome.Refused.class);
      for (String off : List.of("http://127.0.0.1:53682/callbacK", "http://127.0.0.1:53682/callback/", "http://127.0.0.2:53682/callback",
          "http://localhost:53682/callback", "http://127.0.0.1:53682/callback?x=1")) {
        assertThat(grants.authorize(new AuthorizationRequest(c.clientId(), off, r.responseType(), r.codeChallenge(), "S256", null, null, "alice"), RESOURCE))
            .as(off).isInstanceOf(AuthorizeOutcome.Refused.class);
      }
      assertThat(grants.authorize(new AuthorizationRequest(c.clientId(), null, "code", pkce.challenge(), "S256", null, null, "alice"), RESOURCE))
          .isInstanceOf(AuthorizeOutcome.Refused.class);
    }

    @Test
    void aLoopbackRedirectUriMayComeOnAnotherPort() throws Exception {
      RegisteredClient c = client();
      assertThat(grants.authorize(new AuthorizationRequest(c.clientId(), "http://127.0.0.1:61000/callback", "code", pkce.challenge(),
          "S256", null, null, "alice"), RESOURCE)).isInstanceOf(AuthorizeOutcome.Issued.class);
    }

    @Test
    void pkceIsS256OnlyAndRequired() throws Exception {
      RegisteredClient c = client();
      assertError(new AuthorizationRequest(c.clientId(), REDIRECT, "code", null, null, null, null, "alice"), "invalid_request");
      assertError(new AuthorizationRequest(c.clientId(), REDIRECT, "code", pkce.challenge(), "plain", null, null, "alice"), "invalid_request");
      assertError(new AuthorizationRequest(c.clientId(), REDIRECT, "code", pkce.challenge(), null, null, null, "alice"), "invalid_request");
      assertError(new AuthorizationRequest(c.clientId(), REDIRECT, "code", "short", "S256", null, null, "alice"), "invalid_request");
    }

    @Test
    void otherErrorsGoBackToTheClient() throws Exception {
      RegisteredClient c = client();
      assertError(new AuthorizationRequest(c.clientId(), REDIRECT, "token", pkce.challenge(), "S256", null, null, "alice"),
          "unsupported_response_type");
      assertError(new AuthorizationRequest(c.clientId(), REDIRECT, "code", pkce.challenge(), "S256", null, "https://other.example/mcp", "alice"),
          "invalid_target");
      assertError(new AuthorizationRequest(c.clientId(), REDIRECT, "code", pkce.challenge(), "S256", null, null, null), "access_denied");
      assertError(new AuthorizationRequest(c.clientId(), REDIRECT, "code", pkce.challenge(), "S256", null, null, ""), "access_denied");
    }

    @Test
    void theResourceMayCarryATrailingSlash() throws Exception {
      RegisteredClient c = client();
      assertThat(grants.authorize(new AuthorizationRequest(c.clientId(), REDIRECT, "code", pkce.challenge(), "S256", null, RESOURCE + "/", "alice"), RESOURCE))
          .isInstanceOf(AuthorizeOutcome.Issued.class);
    }

    private void assertError(AuthorizationRequest r, String error) {
      assertThat(grants.authorize(r, RESOURCE)).isInstanceOfSatisfying(AuthorizeOutcome.RedirectError.class,
          e -> assertThat(e.error()).isEqualTo(error));
    }
  }

  @Nested
  class Codes {

    @Test
    void aCodeBuysTokensOnceForItsUser() throws Exception {
      RegisteredClient c = client();
      TokenOutcome.Issued t = tokens(c);
      assertThat(t.expiresIn()).isEqualTo(3599);
      assertThat(t.scope()).isEqualTo("mcp");
      assertThat(t.accessToken()).isNotEqualTo(t.refreshToken()).hasSize(43);
      assertThat(grants.principal(t.accessToken(), RESOURCE)).isEqualTo("alice");
      assertThat(grants.principal(t.refreshToken(), RESOURCE)).as("a refresh token is no access token").isNull();
      assertThat(t.toString()).doesNotContain(t.accessToken()).doesNotContain(t.refreshToken());
    }

    @Test
    void aReplayWithinTheGraceIsRefusedAndLeavesTheTokens() throws Exception {
      RegisteredClient c = client();
      String code = code(c);
      TokenOutcome.Issued t = (TokenOutcome.Issued) grants.token(redeem(c, code));
      now.addAndGet(5_000);
      assertFailed(grants.token(redeem(c, code)), "invalid_grant", "already used");
      assertThat(grants.principal(t.accessToken(), RESOURCE)).isEqualTo("alice");
    }

    @Test
    void aReplayAfterTheGraceRevokesTheWholeFamily() throws Exception {
      RegisteredClient c = client();
      String code = code(c);
      TokenOutcome.Issued t = (TokenOutcome.Issued) grants.token(redeem(c, code));
      TokenOutcome.Issued rotated = (TokenOutcome.Issued) grants.token(refreshForm(c, t.refreshToken()));
      now.addAndGet(11_000);
      assertFailed(grants.token(redeem(c, code)), "invalid_grant", "issued tokens revoked");
      assertThat(grants.principal(t.accessToken(), RESOURCE)).isNull();
      assertThat(grants.principal(rotated.accessToken(), RESOURCE)).isNull();
      assertFailed(grants.token(refreshForm(c, rotated.refreshToken())), "invalid_grant", "revoked");
    }

    @Test
    void theCodeIsBoundToItsClientRedirectAndVerifier() throws Exception {
      RegisteredClient c = client();
      RegisteredClient other = client();
      Map<String, String> form = redeem(c, code(c));
      form.put("client_id", other.clientId());
      assertFailed(grants.token(form), "invalid_grant", "another client");
      form = redeem(c, code(c));
      form.put("redirect_uri", "http://127.0.0.1:53683/callback");
      assertFailed(grants.token(form), "invalid_grant", "redirect_uri");
      form = redeem(c, code(c));
      form.put("code_verifier", Pkce.create().verifier());
      assertFailed(grants.token(form), "invalid_grant", "does not match");
      form = redeem(c, code(c));
      form.put("code_verifier", pkce.challenge()); // "plain": the challenge itself as the verifier
      assertFailed(grants.token(form), "invalid_grant", "does not match");
      form = redeem(c, code(c));
      form.put("code_verifier", "too-short");
      assertFailed(grants.token(form), "invalid_request", "code_verifier");
      form = redeem(c, code(c));
      form.remove("code_verifier");
      assertFailed(grants.token(form), "invalid_request", "code_verifier");
    }

    @Test
    void aFailedRedemptionStillUsesTheCodeUp() throws Exception {
      RegisteredClient c = client();
      String code = code(c);
      Map<String, String> wrong = redeem(c, code);
      wrong.put("code_verifier", Pkce.create().verifier());
      assertFailed(grants.token(wrong), "invalid_grant", "does not match");
      assertFailed(grants.token(redeem(c, code)), "invalid_grant", "already used");
    }

    @Test
    void aCodeLivesSixtySeconds() throws Exception {
      RegisteredClient c = client();
      String code = code(c);
      now.addAndGet(60_000);
      assertFailed(grants.token(redeem(c, code)), "invalid_grant", "expired");
    }

    @Test
    void theGrantTypeIsRequiredAndKnown() {
      assertFailed(grants.token(Map.of()), "invalid_request", "grant_type");
      assertFailed(grants.token(Map.of("grant_type", "password")), "unsupported_grant_type", "grant_type");
      assertFailed(grants.token(Map.of("grant_type", "authorization_code")), "invalid_request", "code");
      assertFailed(grants.token(Map.of("grant_type", "authorization_code", "code", "forged")), "invalid_grant", "unknown");
    }

    @Test
    void atTheEntryBoundTheCodeThatExpiresSoonestMakesRoom() throws Exception {
      Grants small = new Grants(new GrantSettings(Duration.ofHours(1), Duration.ofSeconds(60), Duration.ofDays(30),
          Duration.ofSeconds(10), 10, 2), Set.of(), now::get);
      RegisteredClient c = small.register(List.of(REDIRECT));
      AuthorizationRequest r = new AuthorizationRequest(c.clientId(), REDIRECT, "code", pkce.challenge(), "S256", null, null, "alice");
      String first = ((AuthorizeOutcome.Issued) small.authorize(r, RESOURCE)).code();
      now.addAndGet(1);
      String second = ((AuthorizeOutcome.Issued) small.authorize(r, RESOURCE)).code();
      now.addAndGet(1);
      String third = ((AuthorizeOutcome.Issued) small.authorize(r, RESOURCE)).code();
      Map<String, String> form = new HashMap<>(Map.of("grant_type", "authorization_code", "client_id", c.clientId(),
          "redirect_uri", REDIRECT, "code_verifier", pkce.verifier()));
      form.put("code", first);
      assertFailed(small.token(form), "invalid_grant", "unknown");
      form.put("code", third);
      assertThat(small.token(form)).isInstanceOf(TokenOutcome.Issued.class);
      form.put("code", second);
      assertThat(small.token(form)).isInstanceOf(TokenOutcome.Issued.class);
    }
  }

  @Nested
  class Refresh {

    @Test
    void aRefreshRotatesTheToken() throws Exception {
      RegisteredClient c = client();
      TokenOutcome.Issued t = tokens(c);
      TokenOutcome.Issued next = (TokenOutcome.Issued) grants.token(refreshForm(c, t.refreshToken()));
      assertThat(next.refreshToken()).isNotEqualTo(t.refreshToken());
      assertThat(grants.principal(next.accessToken(), RESOURCE)).isEqualTo("alice");
      assertThat(grants.principal(t.accessToken(), RESOURCE)).as("the old access token lives out its time").isEqualTo("alice");
    }

    @Test
    void reuseWithinTheGraceIsRefusedAndLeavesTheFamily() throws Exception {
      RegisteredClient c = client();
      TokenOutcome.Issued t = tokens(c);
      TokenOutcome.Issued next = (TokenOutcome.Issued) grants.token(refreshForm(c, t.refreshToken()));
      now.addAndGet(9_000);
      assertFailed(grants.token(refreshForm(c, t.refreshToken())), "invalid_grant", "already rotated");
      assertThat(grants.token(refreshForm(c, next.refreshToken()))).isInstanceOf(TokenOutcome.Issued.class);
    }

    @Test
    void reuseAfterTheGraceRevokesTheFamily() throws Exception {
      RegisteredClient c = client();
      TokenOutcome.Issued t = tokens(c);
      TokenOutcome.Issued next = (TokenOutcome.Issued) grants.token(refreshForm(c, t.refreshToken()));
      now.addAndGet(10_001);
      assertFailed(grants.token(refreshForm(c, t.refreshToken())), "invalid_grant", "reuse detected");
      assertThat(grants.principal(next.accessToken(), RESOURCE)).isNull();
      assertFailed(grants.token(refreshForm(c, next.refreshToken())), "invalid_grant", "revoked");
    }

    @Test
    void reuseIsDetectedHoweverManyRotationsCameBetween() throws Exception {
      Grants small = new Grants(new GrantSettings(Duration.ofHours(1), Duration.ofSeconds(60), Duration.ofDays(30),
          Duration.ofSeconds(10), 10, 5), Set.of(), now::get);
      RegisteredClient c = small.register(List.of(REDIRECT));
      AuthorizationRequest r = new AuthorizationRequest(c.clientId(), REDIRECT, "code", pkce.challenge(), "S256", null, null, "alice");
      String code = ((AuthorizeOutcome.Issued) small.authorize(r, RESOURCE)).code();
      TokenOutcome.Issued victims = (TokenOutcome.Issued) small.token(redeem(c, code));
      // a thief with a copy of the refresh token rotates first, then many times more (past every store's bound)
      TokenOutcome.Issued thiefs = (TokenOutcome.Issued) small.token(refreshForm(c, victims.refreshToken()));
      for (int i = 0; i < 50; i++) {
        thiefs = (TokenOutcome.Issued) small.token(refreshForm(c, thiefs.refreshToken()));
      }
      now.addAndGet(11_000);
      assertFailed(small.token(refreshForm(c, victims.refreshToken())), "invalid_grant", "reuse detected");
      assertThat(small.principal(thiefs.accessToken(), RESOURCE)).isNull();
      assertFailed(small.token(refreshForm(c, thiefs.refreshToken())), "invalid_grant", "revoked");
    }

    @Test
    void aFamilyLivesThirtyDaysFromItsCodeHoweverOftenItRotates() throws Exception {
      RegisteredClient c = client();
      TokenOutcome.Issued t = tokens(c);
      now.addAndGet(Duration.ofDays(29).toMillis());
      TokenOutcome.Issued late = (TokenOutcome.Issued) grants.token(refreshForm(c, t.refreshToken()));
      now.addAndGet(Duration.ofDays(1).toMillis());
      assertFailed(grants.token(refreshForm(c, late.refreshToken())), "invalid_grant", "unknown or expired");
      assertThat(grants.principal(late.accessToken(), RESOURCE)).isNull();
    }

    @Test
    void aForgedRefreshTokenOfAnUnknownFamilyIsUnknown() {
      assertFailed(grants.token(new HashMap<>(Map.of("grant_type", "refresh_token", "refresh_token", "nofamily.x", "client_id", "c"))),
          "invalid_grant", "unknown");
      assertFailed(grants.token(new HashMap<>(Map.of("grant_type", "refresh_token", "refresh_token", "no-dot", "client_id", "c"))),
          "invalid_grant", "unknown");
    }

    @Test
    void aWrongClientDoesNotDestroyAGoodToken() throws Exception {
      RegisteredClient c = client();
      RegisteredClient other = client();
      TokenOutcome.Issued t = tokens(c);
      assertFailed(grants.token(refreshForm(other, t.refreshToken())), "invalid_grant", "another client");
      assertThat(grants.token(refreshForm(c, t.refreshToken()))).isInstanceOf(TokenOutcome.Issued.class);
    }

    @Test
    void aScopeMayNarrowButNeverWiden() throws Exception {
      RegisteredClient c = client();
      TokenOutcome.Issued t = tokens(c);
      Map<String, String> wider = refreshForm(c, t.refreshToken());
      wider.put("scope", "mcp admin");
      assertFailed(grants.token(wider), "invalid_scope", "exceeds");
      Map<String, String> same = refreshForm(c, t.refreshToken());
      same.put("scope", "mcp");
      assertThat(((TokenOutcome.Issued) grants.token(same)).scope()).isEqualTo("mcp");
    }

    @Test
    void anExpiredAccessTokenNamesNobody() throws Exception {
      RegisteredClient c = client();
      TokenOutcome.Issued t = tokens(c);
      now.addAndGet(Duration.ofHours(1).toMillis());
      assertThat(grants.principal(t.accessToken(), RESOURCE)).isNull();
      assertThat(grants.token(refreshForm(c, t.refreshToken()))).isInstanceOf(TokenOutcome.Issued.class);
    }
  }

  @Nested
  class Bounds {

    @Test
    void aUserWhoSignsInAgainAndAgainReplacesItsOwnOldestGrantsNotOthers() throws Exception {
      // a store barely larger than one user's quota: were a user's extra grants kept in any form, bob's would be pushed out
      Grants small = new Grants(new GrantSettings(GrantSettings.DEFAULT_ACCESS_TOKEN_TTL, Duration.ofSeconds(60), Duration.ofDays(30),
          Duration.ofSeconds(10), 10, Grants.MAX_FAMILIES_PER_USER + 5), Set.of(), now::get);
      RegisteredClient c = small.register(List.of(REDIRECT));
      TokenOutcome.Issued bob = signIn(small, c, "bob");
      List<TokenOutcome.Issued> alices = new java.util.ArrayList<>();
      for (int i = 0; i < 3 * Grants.MAX_FAMILIES_PER_USER; i++) {
        now.addAndGet(1);
        alices.add(signIn(small, c, "alice"));
      }
      assertThat(small.principal(bob.accessToken(), RESOURCE)).as("another user's grant").isEqualTo("bob");
      assertThat(small.principal(alices.getFirst().accessToken(), RESOURCE)).as("alice's oldest made room").isNull();
      assertThat(small.principal(alices.getLast().accessToken(), RESOURCE)).isEqualTo("alice");
      assertFailed(small.token(refreshForm(c, alices.getFirst().refreshToken())), "invalid_grant", "unknown");
      TokenOutcome.Issued once = (TokenOutcome.Issued) small.token(refreshForm(c, bob.refreshToken()));
      assertThat(small.principal(bob.accessToken(), RESOURCE)).as("the one before lives on").isEqualTo("bob");
      now.addAndGet(1);
      TokenOutcome.Issued twice = (TokenOutcome.Issued) small.token(refreshForm(c, once.refreshToken()));
      assertThat(small.principal(bob.accessToken(), RESOURCE)).as("two access tokens per grant at most").isNull();
      assertThat(small.principal(once.accessToken(), RESOURCE)).isEqualTo("bob");
      assertThat(small.principal(twice.accessToken(), RESOURCE)).isEqualTo("bob");
    }

    private TokenOutcome.Issued signIn(Grants g, RegisteredClient c, String user) {
      AuthorizationRequest r = new AuthorizationRequest(c.clientId(), REDIRECT, "code", pkce.challenge(), "S256", "mcp", RESOURCE, user);
      String code = ((AuthorizeOutcome.Issued) g.authorize(r, RESOURCE)).code();
      return (TokenOutcome.Issued) g.token(redeem(c, code));
    }
  }

  @Nested
  class Revocation {

    @Test
    void revokingARefreshTokenEndsItsFamily() throws Exception {
      RegisteredClient c = client();
      TokenOutcome.Issued t = tokens(c);
      grants.revoke(t.refreshToken(), c.clientId());
      assertThat(grants.principal(t.accessToken(), RESOURCE)).isNull();
      assertFailed(grants.token(refreshForm(c, t.refreshToken())), "invalid_grant", "revoked");
    }

    @Test
    void revokingAnAccessTokenEndsOnlyIt() throws Exception {
      RegisteredClient c = client();
      TokenOutcome.Issued t = tokens(c);
      grants.revoke(t.accessToken(), c.clientId());
      assertThat(grants.principal(t.accessToken(), RESOURCE)).isNull();
      assertThat(grants.token(refreshForm(c, t.refreshToken()))).isInstanceOf(TokenOutcome.Issued.class);
    }

    @Test
    void anotherClientRevokesNothing() throws Exception {
      RegisteredClient c = client();
      RegisteredClient other = client();
      TokenOutcome.Issued t = tokens(c);
      grants.revoke(t.accessToken(), other.clientId());
      grants.revoke(t.refreshToken(), other.clientId());
      grants.revoke("forged", c.clientId());
      grants.revoke(null, c.clientId());
      assertThat(grants.principal(t.accessToken(), RESOURCE)).isEqualTo("alice");
    }
  }

  @Test
  void aTokenIsForTheResourceItWasIssuedFor() throws Exception {
    RegisteredClient c = client();
    TokenOutcome.Issued t = tokens(c);
    assertThat(grants.principal(t.accessToken(), RESOURCE + "/")).isEqualTo("alice");
    assertThat(grants.principal(t.accessToken(), "https://other.example/mcp")).isNull();
    assertThat(grants.principal(t.accessToken(), "http://gw.example/mcp")).isNull();
  }

}
