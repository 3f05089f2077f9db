package dev.mcpstdio.reliability;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A Streamable HTTP (2025 era) MCP server that misbehaves on purpose, for the reliability suite:
 * each {@code tools/call} is answered after {@link Faults#delayMillis} (without holding a thread),
 * with an answer padded to {@link Faults#answerBytes}; and on request it adds answers for ids nobody
 * asked, repeats an answer, answers with a one-element array, refuses the first calls with 503 or
 * 429, cuts an event stream in the middle of an answer, or never answers at all (half-open).
 */
final class FaultyUpstream implements AutoCloseable {

  /** What goes wrong. Every field's zero value means "behave". */
  record Faults(
      long delayMillis,
      int answerBytes,
      boolean unsolicited,
      boolean duplicate,
      boolean arrayAnswer,
      int refuseFirst,
      int refuseStatus,
      boolean cutMidStream,
      boolean halfOpen) {
    static Faults none() {
      return new Faults(0, 0, false, false, false, 0, 0, false, false);
    }

    Faults delayed(long millis) {
      return new Faults(millis, answerBytes, unsolicited, duplicate, arrayAnswer, refuseFirst, refuseStatus, cutMidStream, halfOpen);
    }

    Faults padded(int bytes) {
      return new Faults(delayMillis, bytes, unsolicited, duplicate, arrayAnswer, refuseFirst, refuseStatus, cutMidStream, halfOpen);
    }

    Faults hostile() {
      return new Faults(delayMillis, answerBytes, true, true, true, refuseFirst, refuseStatus, cutMidStream, halfOpen);
    }

    Faults refusing(int first, int status) {
      return new Faults(delayMillis, answerBytes, unsolicited, duplicate, arrayAnswer, first, status, cutMidStream, halfOpen);
    }

    Faults cutting() {
      return new Faults(delayMillis, answerBytes, unsolicited, duplicate, arrayAnswer, refuseFirst, refuseStatus, true, halfOpen);
    }

    Faults silent() {
      return new Faults(delayMillis, answerBytes, unsolicited, duplicate, arrayAnswer, refuseFirst, refuseStatus, cutMidStream, true);
    }
  }

  private final Server server;
  private final ServerConnector connector;
  private final Faults faults;
  private final AtomicLong calls = new AtomicLong();
  private final AtomicLong refusals = new AtomicLong();

  FaultyUpstream(Faults faults) throws Exception {
    this.faults = faults;
    QueuedThreadPool threads = new QueuedThreadPool(64, 4);
    threads.setName("faulty-upstream");
    this.server = new Server(threads);
    this.connector = new ServerConnector(server, 1, 1);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    connector.setAcceptQueueSize(4096);
    connector.setIdleTimeout(600_000);
    server.addConnector(connector);
    server.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) throws Exception {
        serve(request, response, callback);
        return true;
      }
    });
    server.start();
  }

  URI url() {
    return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/mcp");
  }

  /** How many {@code tools/call} requests the server has started to run. */
  long calls() {
    return calls.get();
  }

  private void serve(Request request, Response response, Callback callback) throws Exception {
    if (!request.getMethod().equals("POST")) {
      response.setStatus(request.getMethod().equals("DELETE") ? 200 : 405);
      callback.succeeded();
      return;
    }
    byte[] body = Request.asInputStream(request).readAllBytes();
    JsonRpcMessage message = JsonRpcCodec.parse(body);
    if (!(message instanceof JsonRpcMessage.Request r)) {
      response.setStatus(202);
      callback.succeeded();
      return;
    }
    if (r.method().equals("initialize")) {
      response.getHeaders().put("Mcp-Session-Id", "faulty-session");
      String json = "{\"jsonrpc\":\"2.0\",\"id\":" + r.id().json()
          + ",\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},"
          + "\"serverInfo\":{\"name\":\"faulty\",\"version\":\"1\"}}}";
      json(response, callback, json);
      return;
    }
    if (!r.method().equals("tools/call")) {
      json(response, callback, "{\"jsonrpc\":\"2.0\",\"id\":" + r.id().json() + ",\"result\":{}}");
      return;
    }
    if (refusals.incrementAndGet() <= faults.refuseFirst()) {
      response.setStatus(faults.refuseStatus());
      if (faults.refuseStatus() == 429 || faults.refuseStatus() == 503) {
        response.getHeaders().put("Retry-After", "0");
      }
      callback.succeeded();
      return;
    }
    calls.incrementAndGet();
    if (faults.halfOpen()) {
      return; // the connection stays open and nothing is ever written
    }
    String answer = answer(r.id().json());
    Runnable reply = () -> {
      try {
        reply(response, callback, answer);
      } catch (RuntimeException e) {
        callback.failed(e);
      }
    };
    if (faults.delayMillis() > 0) {
      request.getComponents().getScheduler().schedule(reply, faults.delayMillis(), TimeUnit.MILLISECONDS);
    } else {
      reply.run();
    }
  }

  private String answer(String idJson) {
    StringBuilder text = new StringBuilder(Math.max(16, faults.answerBytes()));
    while (text.length() < faults.answerBytes()) {
      text.append("0123456789abcdef");
    }
    return "{\"jsonrpc\":\"2.0\",\"id\":" + idJson + ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\""
        + text + "\"}]}}";
  }

  /** The answer as an event stream, with whatever extra the faults ask for. */
  private void reply(Response response, Callback callback, String answer) {
    StringBuilder events = new StringBuilder();
    if (faults.unsolicited()) {
      events.append(event("{\"jsonrpc\":\"2.0\",\"id\":99999,\"result\":{}}"));
      events.append(event("{\"jsonrpc\":\"2.0\",\"id\":\"never-asked-1\",\"result\":{}}"));
    }
    if (faults.cutMidStream()) {
      response.getHeaders().put("Content-Type", "text/event-stream");
      byte[] half = ("event: message\ndata: " + answer.substring(0, answer.length() / 2))
          .getBytes(StandardCharsets.UTF_8);
      response.write(false, ByteBuffer.wrap(half), Callback.from(() -> callback.failed(new java.io.IOException("cut")),
          callback::failed));
      return;
    }
    events.append(event(faults.arrayAnswer() ? "[" + answer + "]" : answer));
    if (faults.duplicate()) {
      events.append(event(answer));
    }
    response.getHeaders().put("Content-Type", "text/event-stream");
    byte[] out = events.toString().getBytes(StandardCharsets.UTF_8);
    response.getHeaders().put("Content-Length", String.valueOf(out.length));
    response.write(true, ByteBuffer.wrap(out), callback);
  }

  private static String event(String json) {
    return "event: message\ndata: " + json + "\n\n";
  }

  private static void json(Response response, Callback callback, String json) {
    byte[] out = json.getBytes(StandardCharsets.UTF_8);
    response.getHeaders().put("Content-Type", "application/json");
    response.getHeaders().put("Content-Length", String.valueOf(out.length));
    response.write(true, ByteBuffer.wrap(out), callback);
  }

  @Override
  public void close() throws Exception {
    server.stop();
  }
}
