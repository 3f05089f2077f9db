package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.process.ChildLog;
import dev.mcpstdio.serve.http.ByteBudget;
import dev.mcpstdio.serve.http.EventStream;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A session's GET stream: where the child's messages that belong to no request go, and the
 * bounded backlog ({@link #BACKLOG} messages, their bytes in the gateway's allowance) that keeps
 * them while no GET stream is open, and takes back what a departed client left unread. The newest
 * GET stream wins: one still open is ended and its unwritten messages move to the new one. In the
 * HTTP+SSE (2024-11-05) one-stream mode this is the session's only stream, answers included
 * ({@link #force}).
 *
 * <p>The GET stream and the backlog change only under {@link #streamLock}. The session's ended
 * flag ({@link SessionLife#ended}) is a volatile set once, outside the lock, by
 * {@link Session#end}, which only then takes the lock to drain the backlog ({@link #dropBacklog}):
 * a section under the lock that reads the flag as false and adds to the backlog therefore runs
 * before that drain, and one that runs after it reads true, so nothing is left behind.
 */
final class SessionGetStream {

  /** Messages kept for a GET stream that is not open yet. */
  static final int BACKLOG = 1024;

  /** What a GET stream writes first, once its response is open (the HTTP+SSE endpoint event). */
  interface StreamOpening {
    void open(EventStream events) throws IOException;
  }

  private final SessionLife life;
  private final ChildLog childLog;
  private final ByteBudget queuedBytes;
  private final Object streamLock = new Object();
  private final ArrayDeque<byte[]> backlog = new ArrayDeque<>(); // guarded by streamLock
  private SessionStream stream; // guarded by streamLock

  /** @param queuedBytes the gateway-wide allowance for messages waiting for slow clients */
  SessionGetStream(SessionLife life, ChildLog childLog, ByteBudget queuedBytes) {
    this.life = life;
    this.childLog = childLog;
    this.queuedBytes = queuedBytes;
  }

  /** True when no GET stream is open. */
  boolean closed() {
    synchronized (streamLock) {
      return stream == null || stream.ended();
    }
  }

  /**
   * Opens the GET stream, handing it whatever waited in the backlog. The newest stream wins: one
   * still open (perhaps over a connection that died silently) is ended and its unwritten messages
   * move to the new one, so a client that reconnects is never locked out.
   */
  SessionStream open() {
    synchronized (streamLock) {
      SessionStream fresh = new SessionStream(queuedBytes);
      if (stream != null && !stream.ended()) {
        stream.end();
        backlogFirst(stream.drain());
        childLog.log().info("a new session stream replaces the open one");
      }
      while (!backlog.isEmpty() && fresh.offer(backlog.peekFirst())) {
        queuedBytes.giveBack(backlog.pollFirst().length); // now counted by the stream
      }
      stream = fresh;
      life.touch();
      if (life.over()) {
        fresh.end();
      }
      return fresh;
    }
  }

  /**
   * Serves the GET stream on {@code events}: takes over the session stream before the client sees a
   * byte (so the newest request wins), runs {@code opening}, then writes messages as they come, with a
   * keep-alive, which also counts as activity, after each quiet {@code keepAliveMillis}. Returns
   * when the stream ends; an IOException means the client left. Either way the unwritten messages,
   * one whose write failed first, go back to the backlog.
   */
  void serve(EventStream events, long keepAliveMillis, StreamOpening opening) throws IOException, InterruptedException {
    SessionStream s = open();
    byte[] unsent = null;
    try {
      opening.open(events);
      while (true) {
        byte[] message = s.next(keepAliveMillis);
        if (message != null) {
          unsent = message;
          events.message(message);
          unsent = null;
        } else if (s.ended()) {
          break;
        } else {
          events.keepAlive();
          life.touch();
        }
      }
      events.close();
    } finally {
      close(s, unsent);
    }
  }

  /**
   * The GET stream's writer is done (its client left, or the session ended). Unwritten messages,
   * {@code unsent} first, go back to the backlog for the next stream.
   */
  void close(SessionStream s, byte[] unsent) {
    synchronized (streamLock) {
      s.end();
      List<byte[]> rest = new ArrayList<>(s.drain());
      if (unsent != null) {
        rest.addFirst(unsent);
      }
      if (!life.ended()) {
        backlogFirst(rest);
      }
    }
    life.touch();
  }

  /** Puts messages back at the head of the backlog, oldest first, within its bounds. */
  private void backlogFirst(List<byte[]> messages) {
    for (int i = messages.size() - 1; i >= 0; i--) {
      byte[] m = messages.get(i);
      if (backlog.size() >= BACKLOG || !queuedBytes.tryTake(m.length)) {
        childLog.warn("the session backlog is full; dropped a message a departed client did not read");
        continue;
      }
      backlog.addFirst(m);
    }
  }

  /**
   * Sends {@code line} on the GET stream, or keeps it in the backlog while none is open (the
   * oldest dropped past {@link #BACKLOG}); dropped, and said so, when the stream's client is not
   * reading or the allowance is spent. {@code what} names it in those lines.
   */
  void offer(byte[] line, String what) {
    synchronized (streamLock) {
      if (stream != null && !stream.ended()) {
        if (!stream.offer(line)) {
          childLog.warn("the session stream's client is not reading; dropped " + what);
        }
        return;
      }
      if (life.ended()) {
        return;
      }
      if (backlog.size() >= BACKLOG) {
        queuedBytes.giveBack(backlog.pollFirst().length);
        childLog.warn("no session stream open and " + BACKLOG + " messages waiting; dropped the oldest");
      }
      if (!queuedBytes.tryTake(line.length)) {
        childLog.warn("messages waiting for clients use the whole allowance (" + queuedBytes.limit() + " bytes); dropped "
            + what);
        return;
      }
      backlog.addLast(line);
    }
  }

  /**
   * HTTP+SSE (2024-11-05) one-stream sessions: an answer goes on the stream past the queue's bounds
   * (it takes its bytes anyway), since dropping it would leave its request unanswered for good.
   */
  void force(byte[] line) {
    synchronized (streamLock) {
      if (stream != null && !stream.ended()) {
        stream.force(line);
      } else if (!life.ended()) {
        queuedBytes.take(line.length); // counted like any backlog entry, given back when it moves on
        backlog.addLast(line);
      }
    }
  }

  /** Gives up the backlog (the session ended; see the class comment for why nothing is left behind). */
  void dropBacklog() {
    synchronized (streamLock) {
      for (byte[] m : backlog) {
        queuedBytes.giveBack(m.length);
      }
      backlog.clear();
    }
  }

  /** Ends the open GET stream, if any: its writer finishes after what is queued. */
  void end() {
    synchronized (streamLock) {
      if (stream != null) {
        stream.end();
      }
    }
  }
}
