package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.host.Callback;
import dev.mcpstdio.host.CallbackParser;
import dev.mcpstdio.host.CallbackRegistry;
import dev.mcpstdio.process.ChildLog;
import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.stdio.Log;
import java.util.List;

/**
 * A session's callback side channel (docs/callbacks.md): the structured callbacks its child writes
 * on stderr or posts to the reply channel, registered for the host's answer, shown on the events
 * API and, when the client elicits, asked of the client ({@link CallbackElicitations}); and what
 * follows a host's credential hand-off ({@link #signedIn}).
 *
 * <p>What goes to the client goes the way the child's own messages go: a question to the oldest
 * request still streaming ({@link ChildOutputRouter#toRunningRequest}), a withdrawal or a
 * finished sign-in to the GET stream.
 */
final class SessionCallbacks {

  private static final CallbackParser CALLBACKS = new CallbackParser(ChildProcess.STDERR_LINE_BYTES);

  private final String sessionId;
  private final SessionLife life;
  private final ChildLog childLog;
  private final ChildOutputRouter router;
  private final SessionGetStream getStream;
  final CallbackElicitations elicitations = new CallbackElicitations();
  private volatile CallbackRegistry registry;
  private volatile CallbackEvents events;

  /** Written by the stderr pump only. */
  private boolean warnedOfBrokenCallback;

  SessionCallbacks(String sessionId, SessionLife life, ChildLog childLog, ChildOutputRouter router,
      SessionGetStream getStream) {
    this.sessionId = sessionId;
    this.life = life;
    this.childLog = childLog;
    this.router = router;
    this.getStream = getStream;
  }

  /** Connects the registry the callbacks wait in and the events API they are shown on. */
  void attach(CallbackRegistry callbackRegistry, CallbackEvents callbackEvents) {
    this.registry = callbackRegistry;
    this.events = callbackEvents;
    callbackRegistry.onFinished(callbackId -> {
      byte[] withdrawal = elicitations.withdraw(callbackId);
      if (withdrawal != null) {
        getStream.offer(withdrawal, "notifications/cancelled"); // the client's dialog for it is moot now
      }
    });
  }

  CallbackRegistry registry() {
    return registry;
  }

  /**
   * Structured callbacks on the child's stderr are recognised here: a valid one is logged as one
   * structured line; a broken one is logged as text (within the child's stderr budget), the first
   * with a warning that says why, later ones with a debug line: a child printing broken callbacks
   * in a loop must not flood the log past its budget.
   *
   * @return true when the line was a callback and must not be logged as text
   */
  boolean onStderrLine(byte[] line) {
    return switch (CALLBACKS.parse(line)) {
      case CallbackParser.Parsed.Plain plain -> false;
      case CallbackParser.Parsed.Rejected rejected -> {
        String why = "a " + CallbackParser.PREFIX + " line is not a valid callback (" + Log.visible(rejected.reason())
            + "); logged as text";
        Log log = childLog.log();
        if (warnedOfBrokenCallback) {
          log.debug(why);
        } else {
          warnedOfBrokenCallback = true;
          log.warn(why + "; later ones are logged at debug level");
        }
        yield false;
      }
      case CallbackParser.Parsed.Valid valid -> {
        onCallback(valid.callback());
        yield true;
      }
    };
  }

  /**
   * A callback from the child, by stderr or by the reply channel's POST: logged (within the child's
   * log budget: a child sending callbacks in a loop costs the log no more than its stderr may),
   * registered for its answer, shown on this session's events API and, when the client elicits,
   * asked of the client.
   */
  void onCallback(Callback callback) {
    childLog.info("callback " + Log.visible(callback.type()) + " (id " + callback.id() + ")");
    CallbackRegistry r = registry;
    if (r == null || life.ended()) {
      return;
    }
    if (!callback.isNotification() && !r.announce(callback)) {
      childLog.warn("callback " + callback.id() + " not taken (a repeated id, or too many waiting)");
      return;
    }
    events.publish(sessionId, callback);
    byte[] ask = elicitations.request(callback);
    if (ask != null) {
      router.toRunningRequest(ask, "elicitation/create"); // to the client, like the child's own requests
    }
  }

  /**
   * The host handed off {@code slug}'s credential (the file is written): the client is told that
   * the URL-mode sign-ins to that source it was asked for have finished (whether or not it has
   * answered them yet: they are not withdrawn as well), and callbacks waiting for a sign-in to that
   * source are answered {@code accept}.
   *
   * @return how many waiting callbacks were answered
   */
  int signedIn(String slug) {
    List<byte[]> finished = elicitations.signedIn(slug); // before answering: no withdrawal for these
    int answered = 0;
    CallbackRegistry r = registry;
    for (Callback c : r == null ? List.<Callback>of() : r.waiting()) {
      if (Callback.AUTH_REQUIRED.equals(c.type()) && slug.equals(c.string("sourceSlug"))
          && r.reply(c.id(), "{\"action\":\"accept\"}") == CallbackRegistry.ReplyResult.ACCEPTED) {
        answered++;
      }
    }
    for (byte[] complete : finished) {
      getStream.offer(complete, "notifications/elicitation/complete");
    }
    return answered;
  }

  /** The session ended: children still waiting for an answer are told there is no decision. */
  void close() {
    CallbackRegistry r = registry;
    if (r != null) {
      r.close();
    }
  }
}
