package dev.mcpstdio.serve.era2026;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.serve.era2026.RequestStateCodec.Decoded;
import dev.mcpstdio.serve.era2026.RequestStateCodec.Expired;
import dev.mcpstdio.serve.era2026.RequestStateCodec.Issued;
import dev.mcpstdio.serve.era2026.RequestStateCodec.Tampered;
import dev.mcpstdio.serve.era2026.RequestStateCodec.Valid;
import dev.mcpstdio.serve.era2026.RequestStateCodec.WrongMethod;
import dev.mcpstdio.serve.era2026.RequestStateCodec.WrongPrincipal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RequestStateCodecTest {

  private final MutableClock clock = new MutableClock();
  private final RequestStateCodec codec = new RequestStateCodec(key(1), clock, Duration.ofSeconds(300));

  private static byte[] key(int fill) {
    byte[] k = new byte[32];
    Arrays.fill(k, (byte) fill);
    return k;
  }

  @Test
  void aStateRoundTripsForItsPrincipalAndMethod() {
    Issued issued = codec.issue("alice", "tools/call");
    assertThat(issued.requestState()).matches("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}");
    Decoded d = codec.decode(issued.requestState(), "alice", "tools/call");
    assertThat(d).isInstanceOf(Valid.class);
    assertThat(((Valid) d).state()).isEqualTo(issued.state());
    assertThat(issued.state().round()).isEqualTo(1);
    assertThat(issued.state().expiresMs() - issued.state().issuedMs()).isEqualTo(300_000);
  }

  @Test
  void thePayloadNamesNoPrincipal() {
    Issued issued = codec.issue("alice@example.com", "tools/call");
    String payload = new String(Base64.getUrlDecoder().decode(issued.requestState().split("\\.")[0]), StandardCharsets.UTF_8);
    assertThat(payload).doesNotContain("alice").contains("\"m\":\"tools/call\"").contains("\"r\":1");
  }

  @Test
  void everyTransactionIsFresh() {
    Set<String> txns = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      assertThat(txns.add(codec.issue("p", "tools/call").state().txn())).isTrue();
    }
  }

  @Test
  void nextRoundsKeepTheTransactionAndStopAt32() {
    Issued first = codec.issue("p", "prompts/get");
    Issued second = codec.next(first.state());
    assertThat(second.state().txn()).isEqualTo(first.state().txn());
    assertThat(second.state().round()).isEqualTo(2);
    assertThat(second.requestState()).isNotEqualTo(first.requestState());
    assertThat(((Valid) codec.decode(second.requestState(), "p", "prompts/get")).state().round()).isEqualTo(2);
    Issued at = first;
    for (int r = 2; r <= RequestStateCodec.MAX_ROUNDS; r++) {
      at = codec.next(at.state());
    }
    Issued last = at;
    assertThatThrownBy(() -> codec.next(last.state())).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void tamperedStatesAreRefused() {
    String good = codec.issue("p", "tools/call").requestState();
    String[] parts = good.split("\\.");
    // every single-character change anywhere
    for (int i = 0; i < good.length(); i++) {
      char c = good.charAt(i);
      for (char r : new char[] {'A', '-', '_', '.', 'z'}) {
        if (r != c) {
          String bad = good.substring(0, i) + r + good.substring(i + 1);
          assertThat(codec.decode(bad, "p", "tools/call")).as(bad).isInstanceOf(Tampered.class);
        }
      }
    }
    // a payload of our making with someone else's MAC, a re-signed payload under another key
    String forged = Base64.getUrlEncoder().withoutPadding().encodeToString(
        "{\"v\":1,\"t\":\"x\",\"p\":\"y\",\"m\":\"tools/call\",\"r\":1,\"i\":0,\"e\":99999999999999}".getBytes(StandardCharsets.UTF_8));
    assertThat(codec.decode(forged + "." + parts[1], "p", "tools/call")).isInstanceOf(Tampered.class);
    RequestStateCodec other = new RequestStateCodec(key(2), clock, Duration.ofSeconds(300));
    assertThat(codec.decode(other.issue("p", "tools/call").requestState(), "p", "tools/call")).isInstanceOf(Tampered.class);
    // shapes
    for (String bad : new String[] {"", ".", "a.", "." + parts[1], parts[0], good + ".", good + "=", parts[0] + "=." + parts[1],
        parts[0] + "." + parts[1] + "AA", "x".repeat(5000), "€." + parts[1], null}) {
      assertThat(codec.decode(bad, "p", "tools/call")).as(String.valueOf(bad)).isInstanceOf(Tampered.class);
    }
  }

  @Test
  void aRestartInvalidatesEveryState() {
    RequestStateCodec before = RequestStateCodec.withRandomKey(clock);
    RequestStateCodec after = RequestStateCodec.withRandomKey(clock);
    String state = before.issue("p", "tools/call").requestState();
    assertThat(before.decode(state, "p", "tools/call")).isInstanceOf(Valid.class);
    assertThat(after.decode(state, "p", "tools/call")).isInstanceOf(Tampered.class);
  }

  @Test
  void boundToPrincipalMethodAndExpiry() {
    String state = codec.issue("alice", "tools/call").requestState();
    assertThat(codec.decode(state, "bob", "tools/call")).isInstanceOf(WrongPrincipal.class);
    assertThat(codec.decode(state, "", "tools/call")).isInstanceOf(WrongPrincipal.class);
    assertThat(codec.decode(state, "alice", "resources/read")).isInstanceOf(WrongMethod.class);
    clock.advance(Duration.ofSeconds(299));
    assertThat(codec.decode(state, "alice", "tools/call")).isInstanceOf(Valid.class);
    clock.advance(Duration.ofSeconds(1));
    assertThat(codec.decode(state, "alice", "tools/call")).isInstanceOf(Expired.class);
    // another principal learns nothing about expiry
    assertThat(codec.decode(state, "bob", "tools/call")).isInstanceOf(WrongPrincipal.class);
  }

  @Test
  void messagesNeverCarryTheState() {
    String state = codec.issue("alice", "tools/call").requestState();
    for (Decoded d : new Decoded[] {codec.decode(state, "alice", "tools/call"), codec.decode(state, "bob", "tools/call"),
        codec.decode(state + "x", "alice", "tools/call"), codec.decode(state, "alice", "x")}) {
      assertThat(d.message()).doesNotContain(state.substring(0, 8)).doesNotContain("alice");
    }
  }

  @Test
  void keysAndTtlsAreChecked() {
    assertThatThrownBy(() -> new RequestStateCodec(new byte[16], clock, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RequestStateCodec(key(1), clock, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> codec.issue("p", "m".repeat(2000))).isInstanceOf(IllegalArgumentException.class);
  }
}
