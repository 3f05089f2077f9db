package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.stdio.Log;
import java.net.http.HttpHeaders;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Carries the session: {@code Mcp-Session-Id} and {@code MCP-Protocol-Version} on every request
 * after initialization, captured from the server's answers; and recovery when the server forgets
 * the session (404 while holding one): re-initialize with the host's own handshake, then replay
 * the message once.
 *
 * <p>A session id is adopted only from a 2xx response. The protocol version is taken from the
 * server's InitializeResult, never from the host's request, and only when it is visible ASCII (it
 * goes into a header). An {@code initialize} from the host starts a new session, so it is sent
 * without the relay's session headers.
 *
 * <p>The one lock held across I/O in the relay: {@code session.recovery} is held across the
 * re-initialize exchange (the {@code initialize} and {@code notifications/initialized} POSTs), on
 * purpose, so that every request that meets the same forgotten session waits for one
 * re-initialization instead of starting its own. The wait is bounded by those two POSTs, each
 * bounded by the request timeouts and the retry ladder below this link; the replay itself is sent
 * after the lock is released.
 */
final class SessionLink implements Interceptor {

  static final String SESSION_HEADER = "mcp-session-id";
  static final String VERSION_HEADER = "mcp-protocol-version";

  private final SessionState session;
  private final InitializeMemory memory;
  private final Log log;
  private final Runnable onNewSession;
  private final Consumer<SessionState.Snapshot> endSession;

  /**
   * @param onNewSession told when the session is replaced (the GET stream follows it)
   * @param endSession ends a session the relay no longer uses (DELETE), without waiting
   */
  private final RelayCounts counts;

  SessionLink(
      SessionState session,
      InitializeMemory memory,
      Log log,
      Runnable onNewSession,
      Consumer<SessionState.Snapshot> endSession,
      RelayCounts counts) {
    this.counts = counts;
    this.session = session;
    this.memory = memory;
    this.log = log;
    this.onNewSession = onNewSession;
    this.endSession = endSession;
  }

  @Override
  public Outcome intercept(Chain chain) throws InterruptedException {
    Call call = chain.call();
    boolean initialize = isInitialize(call);
    if (!call.internal()) {
      memory.remember(call.message());
    }
    SessionState.Snapshot before = session.current();
    Outcome outcome = chain.proceed(initialize ? call : withSession(call, before));
    if (initialize) {
      adoptInitialize(outcome);
      return outcome;
    }
    adoptSessionId(call, outcome);
    if (outcome instanceof Outcome.Refused r && r.status() == 404 && before.sessionId() != null) {
      return recover(chain, call, before);
    }
    return outcome;
  }

  static boolean isInitialize(Call call) {
    return call.isRequest() && "initialize".equals(call.method());
  }

  static Call withSession(Call call, SessionState.Snapshot s) {
    return call.withHeaders(sessionHeaders(s));
  }

  /** The session's headers: id and negotiated version, each when known. */
  static Map<String, String> sessionHeaders(SessionState.Snapshot s) {
    Map<String, String> headers = new LinkedHashMap<>();
    if (s.sessionId() != null) {
      headers.put(SESSION_HEADER, s.sessionId());
    }
    if (s.protocolVersion() != null) {
      headers.put(VERSION_HEADER, s.protocolVersion());
    }
    return headers;
  }

  private void adoptSessionId(Call call, Outcome outcome) {
    boolean success =
        outcome instanceof Outcome.Delivered
            || (outcome instanceof Outcome.Accepted && !call.isRequest());
    if (success) {
      String id = sessionIdOf(outcome.headers());
      if (id != null) {
        session.adoptSessionId(id);
      }
    }
  }

  private void adoptInitialize(Outcome outcome) {
    if (!(outcome instanceof Outcome.Delivered d) || d.answer() == null || d.answer().isError()) {
      return;
    }
    String version = protocolVersionOf(d.answer());
    SessionState.Snapshot old = session.current();
    String previous = old.protocolVersion();
    String sessionId = sessionIdOf(d.headers());
    session.replace(sessionId, version != null ? version : previous);
    if (version != null && !version.equals(previous)) {
      log.info("negotiated MCP protocol version: " + version);
    }
    if (old.sessionId() != null && !old.sessionId().equals(sessionId)) {
      // The host initialized again: the old session is abandoned, so end it, and let the GET
      // stream move to the new one.
      endSession.accept(old);
      onNewSession.run();
    }
  }

  private Outcome recover(Chain chain, Call call, SessionState.Snapshot stale)
      throws InterruptedException {
    session.recovery.lock();
    try {
      if (session.current().generation() == stale.generation()) {
        log.info("session expired, re-initializing and retrying");
        counts.reinitializations.increment();
        String failure = reinitialize(chain);
        if (failure != null) {
          log.warn("session lost: " + failure);
          return Outcome.Failed.of(Outcome.Kind.SESSION_LOST, "session lost: " + failure);
        }
      }
    } finally {
      session.recovery.unlock();
    }
    Outcome replay = chain.proceed(withSession(call, session.current()));
    adoptSessionId(call, replay);
    if (replay instanceof Outcome.Refused r && r.status() == 404) {
      return Outcome.Failed.of(
          Outcome.Kind.SESSION_LOST, "session lost: the server rejected the new session too (HTTP 404)");
    }
    return replay;
  }

  /** Runs the handshake again; returns null on success or what went wrong. */
  private String reinitialize(Chain chain) throws InterruptedException {
    SessionState.Snapshot now = session.current();
    Request init = memory.replayInitialize(now.protocolVersion());
    if (init == null) {
      return "the host never sent initialize, so there is nothing to replay";
    }
    Outcome answer = chain.proceed(Call.internal(init));
    if (!(answer instanceof Outcome.Delivered d) || d.answer() == null || d.answer().isError()) {
      return "re-initialize failed (" + describe(answer) + ")";
    }
    String sessionId = sessionIdOf(d.headers());
    String version = protocolVersionOf(d.answer());
    if (version == null) {
      version = now.protocolVersion();
    }
    SessionState.Snapshot fresh = new SessionState.Snapshot(sessionId, version, now.generation());
    Outcome initialized = chain.proceed(withSession(Call.internal(memory.replayInitialized()), fresh));
    if (!(initialized instanceof Outcome.Accepted || initialized instanceof Outcome.Delivered)) {
      return "notifications/initialized failed (" + describe(initialized) + ")";
    }
    session.replace(sessionId, version);
    onNewSession.run();
    return null;
  }

  static String describe(Outcome outcome) {
    return switch (outcome) {
      case Outcome.Refused r -> "HTTP " + r.status();
      case Outcome.Failed f -> f.reason();
      case Outcome.Accepted a -> "HTTP " + a.status() + " without a response";
      case Outcome.Delivered d ->
          d.answer() == null ? "no response" : "the server answered with an error";
    };
  }

  static String sessionIdOf(HttpHeaders headers) {
    String id = Header.first(headers, SESSION_HEADER);
    return id != null && Header.isVisibleAscii(id) ? id : null;
  }

  /** {@code result.protocolVersion} of an InitializeResult, if usable as a header value. */
  static String protocolVersionOf(Response answer) {
    if (answer == null || answer.result() == null) {
      return null;
    }
    JsonSpan span = Json.field(answer.bytes(), answer.result(), "protocolVersion");
    String version = Json.string(answer.bytes(), span);
    return version != null && Header.isVisibleAscii(version) ? version : null;
  }
}
