package dev.mcpstdio.serve.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.oauth.Pkce;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.testing.Await;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --token-store}: the embedded authorization server's state survives a restart, its file
 * holds no usable secret, and a store that is a link, locked, corrupt, of another version, or
 * edited by hand is handled as the inventory says.
 */
class GrantStoreTest {

  private static final String RESOURCE = "https://gw.example/mcp";
  private static final String REDIRECT = "http://127.0.0.1:53682/callback";
  private static final String HOSTED = "https://claude.ai/api/mcp/auth_callback";

  @TempDir
  Path dir;

  private final AtomicLong now = new AtomicLong(System.currentTimeMillis());
  private final ByteArrayOutputStream logged = new ByteArrayOutputStream();
  private final Log log = new Log(logged, Log.Level.DEBUG, new Redactor());

  private Grants grants(Set<String> allowed) {
    return new Grants(GrantSettings.DEFAULTS, allowed, now::get);
  }

  /** A user signed in: the tokens and the client they belong to. */
  private record SignedIn(RegisteredClient client, TokenOutcome.Issued tokens, String unusedCode) {}

  private static SignedIn signIn(Grants g, String redirect) throws Exception {
    RegisteredClient c = g.register(List.of(redirect));
    Pkce pkce = Pkce.create();
    String code = ((AuthorizeOutcome.Issued) g.authorize(new AuthorizationRequest(c.clientId(), redirect, "code", pkce.challenge(),
        "S256", "mcp", RESOURCE, "alice"), RESOURCE)).code();
    TokenOutcome o = g.token(new HashMap<>(Map.of("grant_type", "authorization_code", "code", code, "client_id", c.clientId(),
        "redirect_uri", redirect, "code_verifier", pkce.verifier())));
    String unused = ((AuthorizeOutcome.Issued) g.authorize(new AuthorizationRequest(c.clientId(), redirect, "code", pkce.challenge(),
        "S256", "mcp", RESOURCE, "alice"), RESOURCE)).code();
    return new SignedIn(c, (TokenOutcome.Issued) o, unused);
  }

  private String text(Path file) throws Exception {
    return Files.readString(file, StandardCharsets.UTF_8);
  }

  @Test
  void aRestartSignsNobodyOutAndTheFileHoldsNoUsableSecret() throws Exception {
    Path file = dir.resolve("state").resolve("grants.json");
    Grants first = grants(Set.of());
    SignedIn in;
    try (GrantStore store = GrantStore.open(file, first, log)) {
      in = signIn(first, REDIRECT);
      Path written = file;
      Await.until("the sign-in to be written", Duration.ofSeconds(10), () -> {
        try {
          return text(written).contains(in.client().clientId()) && text(written).contains("\"access_tokens\":[\n{");
        } catch (Exception e) {
          return false;
        }
      });
    }
    String content = text(file);
    assertThat(content).doesNotContain(in.tokens().accessToken()).doesNotContain(in.tokens().refreshToken())
        .doesNotContain(in.unusedCode());
    assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(Files.getPosixFilePermissions(file.getParent())).isEqualTo(PosixFilePermissions.fromString("rwx------"));

    Grants second = grants(Set.of());
    try (GrantStore store = GrantStore.open(file, second, log)) {
      assertThat(second.principal(in.tokens().accessToken(), RESOURCE)).isEqualTo("alice");
      assertThat(second.client(in.client().clientId())).isEqualTo(in.client());
      TokenOutcome refreshed = second.token(new HashMap<>(Map.of("grant_type", "refresh_token", "refresh_token",
          in.tokens().refreshToken(), "client_id", in.client().clientId())));
      assertThat(refreshed).isInstanceOf(TokenOutcome.Issued.class);
      TokenOutcome replay = second.token(new HashMap<>(Map.of("grant_type", "refresh_token", "refresh_token",
          in.tokens().refreshToken(), "client_id", in.client().clientId())));
      assertThat(replay).as("the rotation's record survived too").isInstanceOf(TokenOutcome.Failed.class);
    }
    assertThat(logged.toString()).contains("1 clients, 1 grants, 1 access tokens, 1 codes");
  }

  @Test
  void aStoreThatIsALinkIsRefused() throws Exception {
    Path target = dir.resolve("elsewhere.json");
    Files.writeString(target, "{}");
    Path link = Files.createSymbolicLink(dir.resolve("grants.json"), target);
    assertThatThrownBy(() -> GrantStore.open(link, grants(Set.of()), log)).hasMessageContaining("symbolic link");
    assertThat(text(target)).isEqualTo("{}");
  }

  @Test
  void aSecondProcessOnTheSameStoreIsRefused() throws Exception {
    Path file = dir.resolve("grants.json");
    try (GrantStore held = GrantStore.open(file, grants(Set.of()), log)) {
      assertThatThrownBy(() -> GrantStore.open(file, grants(Set.of()), log)).hasMessageContaining("in use by another process");
    }
    GrantStore.open(file, grants(Set.of()), log).close(); // released with the first
  }

  @Test
  void aCorruptOrNewerStoreIsMovedAsideAndTheServerStartsEmpty() throws Exception {
    for (String content : List.of("not json", "{\"version\":2,\"clients\":[]}", "[]", "{\"clients\":[]}")) {
      Path file = dir.resolve("grants-" + Math.abs(content.hashCode()) + ".json");
      Files.writeString(file, content);
      Grants g = grants(Set.of());
      GrantStore.open(file, g, log).close();
      assertThat(g.state().size()).as(content).isZero();
      try (var aside = Files.list(dir)) {
        assertThat(aside.filter(p -> p.getFileName().toString().startsWith(file.getFileName() + ".unreadable-")).toList())
            .as("kept aside: %s", content).hasSize(1);
      }
      assertThat(text(file)).startsWith("{\"version\":1");
    }
    assertThat(logged.toString()).contains("not a store this version can read (version 2, not 1)");
  }

  @Nested
  class EveryRecordIsChecked {

    @Test
    void theFormatRoundTrips() throws Exception {
      Grants g = grants(Set.of(HOSTED));
      signIn(g, REDIRECT);
      signIn(g, HOSTED);
      GrantState state = g.state();
      GrantStateCodec.Decoded back = GrantStateCodec.decode(GrantStateCodec.encode(state), now.get(), Set.of(HOSTED));
      assertThat(back.state()).isEqualTo(state);
      assertThat(back.expired() + back.malformed()).isZero();
    }

    @Test
    void malformedExpiredAndOrphanedRecordsAreDroppedAndCounted() throws Exception {
      Grants g = grants(Set.of());
      SignedIn in = signIn(g, REDIRECT);
      String good = new String(GrantStateCodec.encode(g.state()), StandardCharsets.UTF_8);
      String id = in.client().clientId();
      String hostile = good
          .replace("\"access_tokens\":[", "\"access_tokens\":[{\"key\":\"short\",\"user\":\"x\",\"client_id\":\"" + id
              + "\",\"resource\":\"r\",\"family\":\"ffffffffffffffffffffff\",\"expires_at\":1},"
              + "{\"key\":\"" + "k".repeat(43) + "\",\"user\":\"x\",\"client_id\":\"" + id
              + "\",\"resource\":\"r\",\"family\":\"" + "f".repeat(22) + "\",\"expires_at\":" + (now.get() + 60_000) + "},")
          .replace("\"codes\":[", "\"codes\":[{\"key\":\"" + "c".repeat(43) + "\",\"client_id\":\"" + id + "\",\"redirect_uri\":\"x\","
              + "\"challenge\":\"" + "a".repeat(43) + "\",\"user\":\"al\\nice\",\"resource\":\"r\",\"expires_at\":" + (now.get() + 60_000) + "},"
              + "{\"key\":\"" + "d".repeat(43) + "\",\"client_id\":\"" + id + "\",\"redirect_uri\":\"x\",\"challenge\":\"" + "a".repeat(43)
              + "\",\"user\":\"bob\",\"resource\":\"r\",\"expires_at\":" + (now.get() - 1) + "},"
              + "{\"key\":\"" + "e".repeat(43) + "\",\"client_id\":\"" + "z".repeat(43) + "\",\"redirect_uri\":\"x\",\"challenge\":\""
              + "a".repeat(43) + "\",\"user\":\"bob\",\"resource\":\"r\",\"expires_at\":" + (now.get() + 60_000) + "},"
              + "{\"key\":\"" + "g".repeat(43) + "\",\"client_id\":7,\"expires_at\":-5},\"not an object\",");
      GrantStateCodec.Decoded d = GrantStateCodec.decode(hostile.getBytes(StandardCharsets.UTF_8), now.get(), Set.of());
      assertThat(d.state()).as("only the real records are kept").isEqualTo(g.state());
      assertThat(d.malformed()).as("a bad key, a bad user, bad types, a non-object").isEqualTo(4);
      assertThat(d.expired()).isEqualTo(1);
      assertThat(d.orphaned()).as("a code of an unknown client, a token of an unknown grant").isEqualTo(2);
    }

    @Test
    void aMetadataDocumentClientsGrantsSurviveThoughItIsNeverRegistered() throws Exception {
      Grants g = grants(Set.of());
      String url = "https://client.example/oauth/client.json";
      RegisteredClient document = new RegisteredClient(url, List.of(REDIRECT), now.get() / 1000);
      Pkce pkce = Pkce.create();
      String code = ((AuthorizeOutcome.Issued) g.authorize(new AuthorizationRequest(url, REDIRECT, "code", pkce.challenge(), "S256", null,
          RESOURCE, "carol"), RESOURCE, document)).code();
      TokenOutcome.Issued t = (TokenOutcome.Issued) g.token(new HashMap<>(Map.of("grant_type", "authorization_code", "code", code,
          "client_id", url, "redirect_uri", REDIRECT, "code_verifier", pkce.verifier())));
      GrantStateCodec.Decoded d = GrantStateCodec.decode(GrantStateCodec.encode(g.state()), now.get(), Set.of());
      assertThat(d.malformed() + d.orphaned()).isZero();
      Grants restored = grants(Set.of());
      restored.restore(d.state());
      assertThat(restored.principal(t.accessToken(), RESOURCE)).isEqualTo("carol");
    }

    @Test
    void aClientWhoseRedirectIsNoLongerAllowedGoesWithItsGrants() throws Exception {
      Grants g = grants(Set.of(HOSTED));
      SignedIn hosted = signIn(g, HOSTED);
      signIn(g, REDIRECT);
      GrantStateCodec.Decoded d = GrantStateCodec.decode(GrantStateCodec.encode(g.state()), now.get(), Set.of());
      assertThat(d.droppedClients()).containsExactly(hosted.client().clientId());
      assertThat(d.state().clients()).hasSize(1);
      assertThat(d.state().families()).hasSize(1);
      assertThat(d.state().accessTokens()).hasSize(1).allMatch(t -> !t.value().clientId().equals(hosted.client().clientId()));
    }
  }
}
