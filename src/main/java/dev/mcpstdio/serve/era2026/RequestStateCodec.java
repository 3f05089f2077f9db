package dev.mcpstdio.serve.era2026;

import com.fasterxml.jackson.core.JsonToken;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Base64;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signed {@code requestState} of serve's reverse MRTR bridge (mcp-stdio.md 4.8; spec.md 5.9:
 * the state is attacker-controlled, so it is integrity-protected and bound to the principal, the
 * method, the round and an expiry).
 *
 * <p>Form: {@code <payload>.<mac>}, both unpadded base64url; the payload is a small JSON object
 * {@code {"v":1,"t":txn,"p":principal hash,"m":method,"r":round,"i":issued ms,"e":expiry ms}}; the
 * MAC is HMAC-SHA256 over the payload's base64url text. The transaction id is 16 random bytes; the
 * principal appears only as a keyed hash (HMAC-SHA256 under a key of its own, derived from the
 * process key), so the state tells a reader nothing about who holds it.
 *
 * <p>Invariants: the MAC is checked, in constant time, before any byte of the payload is parsed;
 * a state longer than {@link #MAX_LENGTH} or not of the form is {@link Tampered} without a MAC
 * computed; then version, principal, method and expiry are checked, in that order (a state shown
 * by another principal learns nothing about its expiry). Single use is not the codec's: {@link
 * ParkedRounds} consumes a transaction's round once. The key is random per process ({@link
 * #withRandomKey}): a restart invalidates every state, which the client sees as a refused retry.
 */
public final class RequestStateCodec {

  /** The payload format's version. */
  public static final int VERSION = 1;

  /** Most rounds of one transaction (the inventory's 32). */
  public static final int MAX_ROUNDS = 32;

  /** How long a state stays valid after it is issued (the inventory's pointer TTL, 300 s). */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(300);

  /** Longest state accepted, in characters: a real one is about 250. */
  public static final int MAX_LENGTH = 1024;

  private static final int MAC_BYTES = 32;
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec macKey;
  private final SecretKeySpec principalKey;
  private final InstantSource clock;
  private final Duration ttl;

  /**
   * A codec with {@code key} (at least 32 bytes), reading time from {@code clock}.
   *
   * @param ttl how long an issued state is valid; positive
   */
  public RequestStateCodec(byte[] key, InstantSource clock, Duration ttl) {
    if (key.length < 32) {
      throw new IllegalArgumentException("the key needs at least 32 bytes");
    }
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive");
    }
    SecretKeySpec root = new SecretKeySpec(key, "HmacSHA256");
    this.macKey = new SecretKeySpec(hmac(root, "mcp-stdio requestState mac"), "HmacSHA256");
    this.principalKey = new SecretKeySpec(hmac(root, "mcp-stdio requestState principal"), "HmacSHA256");
    this.clock = clock;
    this.ttl = ttl;
  }

  /** A codec with a fresh random key (the process's), {@link #DEFAULT_TTL}. */
  public static RequestStateCodec withRandomKey(InstantSource clock) {
    byte[] key = new byte[32];
    RANDOM.nextBytes(key);
    return new RequestStateCodec(key, clock, DEFAULT_TTL);
  }

  /**
   * What a valid state says.
   *
   * @param txn the transaction (the bridged call), base64url
   * @param round 1 for the first question round, at most {@link #MAX_ROUNDS}
   */
  public record State(String txn, String principalHash, String method, int round, long issuedMs, long expiresMs) {}

  /** A state issued: the string the client echoes, and what it says. */
  public record Issued(String requestState, State state) {}

  /** The outcome of {@link #decode}. */
  public sealed interface Decoded permits Valid, Tampered, Expired, WrongPrincipal, WrongMethod {

    /** One line for the client; never the state itself. */
    String message();
  }

  /** The state is genuine, the caller's, for this method, and in time. */
  public record Valid(State state) implements Decoded {
    @Override
    public String message() {
      return "requestState accepted";
    }
  }

  /** Not a state this process issued (forged, altered, cut, or from before a restart). */
  public record Tampered() implements Decoded {
    @Override
    public String message() {
      return "requestState failed verification";
    }
  }

  /** Genuine but past its expiry. */
  public record Expired() implements Decoded {
    @Override
    public String message() {
      return "requestState has expired";
    }
  }

  /** Genuine but issued to another principal. */
  public record WrongPrincipal() implements Decoded {
    @Override
    public String message() {
      return "requestState was not issued to this caller";
    }
  }

  /** Genuine but issued for another method. */
  public record WrongMethod() implements Decoded {
    @Override
    public String message() {
      return "requestState was issued for another method";
    }
  }

  /** The first round's state of a new transaction of {@code principal}'s {@code method} call. */
  public Issued issue(String principal, String method) {
    byte[] txn = new byte[16];
    RANDOM.nextBytes(txn);
    return issue(B64.encodeToString(txn), principalHash(principal), method, 1);
  }

  /** The state of the round after {@code previous}, same transaction; throws past {@link #MAX_ROUNDS}. */
  public Issued next(State previous) {
    return issue(previous.txn(), previous.principalHash(), previous.method(), previous.round() + 1);
  }

  private Issued issue(String txn, String principalHash, String method, int round) {
    if (round < 1 || round > MAX_ROUNDS) {
      throw new IllegalArgumentException("round must be within 1.." + MAX_ROUNDS);
    }
    long now = clock.millis();
    State state = new State(txn, principalHash, method, round, now, now + ttl.toMillis());
    String payload = "{\"v\":" + VERSION + ",\"t\":" + Json.quote(txn) + ",\"p\":" + Json.quote(principalHash)
        + ",\"m\":" + Json.quote(method) + ",\"r\":" + round + ",\"i\":" + state.issuedMs() + ",\"e\":" + state.expiresMs() + "}";
    String body = B64.encodeToString(payload.getBytes(StandardCharsets.UTF_8));
    String token = body + "." + B64.encodeToString(hmac(macKey, body));
    if (token.length() > MAX_LENGTH) {
      throw new IllegalArgumentException("the method name makes the state too long");
    }
    return new Issued(token, state);
  }

  /** Checks {@code requestState} as shown by {@code principal} on a {@code method} retry. */
  public Decoded decode(String requestState, String principal, String method) {
    if (requestState == null || requestState.length() > MAX_LENGTH) {
      return new Tampered();
    }
    int dot = requestState.indexOf('.');
    if (dot <= 0 || dot != requestState.lastIndexOf('.')) {
      return new Tampered();
    }
    String body = requestState.substring(0, dot);
    byte[] mac = canonical(requestState.substring(dot + 1));
    if (mac == null || mac.length != MAC_BYTES || !MessageDigest.isEqual(mac, hmac(macKey, body))) {
      return new Tampered();
    }
    byte[] payload = canonical(body);
    Map<String, JsonSpan> fields = payload == null || !Json.isOneObject(payload) ? null : Json.fields(payload, Splice.whole(payload));
    if (fields == null || number(payload, fields.get("v")) != VERSION) {
      return new Tampered();
    }
    String txn = Json.string(payload, fields.get("t"));
    String hash = Json.string(payload, fields.get("p"));
    String stateMethod = Json.string(payload, fields.get("m"));
    long round = number(payload, fields.get("r"));
    long issued = number(payload, fields.get("i"));
    long expires = number(payload, fields.get("e"));
    if (txn == null || hash == null || stateMethod == null || round < 1 || round > MAX_ROUNDS || issued < 0 || expires < 0) {
      return new Tampered();
    }
    if (!MessageDigest.isEqual(hash.getBytes(StandardCharsets.US_ASCII), principalHash(principal).getBytes(StandardCharsets.US_ASCII))) {
      return new WrongPrincipal();
    }
    if (!stateMethod.equals(method)) {
      return new WrongMethod();
    }
    if (clock.millis() >= expires) {
      return new Expired();
    }
    return new Valid(new State(txn, hash, stateMethod, (int) round, issued, expires));
  }

  /** The keyed hash of {@code principal} a state carries. */
  String principalHash(String principal) {
    return B64.encodeToString(hmac(principalKey, principal));
  }

  /** Decodes unpadded base64url, only in its one canonical spelling; null otherwise. */
  private static byte[] canonical(String text) {
    try {
      byte[] bytes = Base64.getUrlDecoder().decode(text);
      return B64.encodeToString(bytes).equals(text) ? bytes : null;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** A non-negative integer member, or -1. */
  private static long number(byte[] bytes, JsonSpan span) {
    if (span == null || Json.kind(bytes, span) != JsonToken.VALUE_NUMBER_INT || span.length() > 18 || bytes[span.start()] == '-') {
      return -1;
    }
    return Long.parseLong(span.text(bytes));
  }

  private static byte[] hmac(SecretKeySpec key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }
}
