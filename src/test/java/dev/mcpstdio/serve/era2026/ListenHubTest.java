package dev.mcpstdio.serve.era2026;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.process.ChildLog;
import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.serve.http.ClientWatch;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.testing.Await;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * The listen hub's reference counts of {@code resources/subscribe} on a child, with responses
 * whose writes succeed or fail (a client gone before its acknowledgement was written).
 */
class ListenHubTest {

  private static final String INIT = "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"resources\":{\"subscribe\":true}},"
      + "\"serverInfo\":{\"name\":\"c\",\"version\":\"1\"}}";

  private final Log log = new Log(new ByteArrayOutputStream(), Log.Level.DEBUG, new Redactor());

  private PooledChild child() {
    PooledChild child = new PooledChild("alice", ClientAsks.ALL, 1, new ChildLog(log, ChildProcess.StderrLimit.DEFAULT),
        Msgs.NO_EVENTS);
    child.initialized.complete(INIT.getBytes(StandardCharsets.UTF_8));
    return child;
  }

  private static JsonRpcMessage.Request listen(String id) {
    return Msgs.request("{'jsonrpc':'2.0','id':'" + id + "','method':'subscriptions/listen','params':{"
        + "'notifications':{'resourceSubscriptions':['db://a']},'_meta':" + Msgs.META + "}}");
  }

  /** A response whose every write fails (failWrites) or succeeds, counting them. */
  private static Response response(boolean failWrites, AtomicInteger writes) {
    HttpFields.Mutable headers = HttpFields.build();
    return (Response) Proxy.newProxyInstance(Response.class.getClassLoader(), new Class<?>[] {Response.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "getHeaders" -> headers;
          case "write" -> {
            writes.incrementAndGet();
            Callback cb = (Callback) args[2];
            if (failWrites) {
              cb.failed(new IOException("the client has gone"));
            } else {
              cb.succeeded();
            }
            yield null;
          }
          case "isCommitted" -> writes.get() > 0;
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          case "toString" -> "test response";
          default -> null;
        });
  }

  private static final List<String> ACCEPT = List.of("text/event-stream");

  @Test
  void aListenWhoseClientLeftBeforeItsAckNeverTouchesTheChildsSubscriptionCounts() throws Exception {
    PooledChild child = child();
    ListenHub hub = new ListenHub(60_000, new ClientWatch(log), log);
    CompletableFuture<Throwable> failed = new CompletableFuture<>();
    hub.serve(listen("gone"), child, ACCEPT, response(true, new AtomicInteger()), Callback.from(() -> failed.complete(null),
        failed::complete));
    assertThat(failed.get(5, TimeUnit.SECONDS)).isInstanceOf(IOException.class);
    assertThat(child.subscriptions).as("nothing was subscribed, so nothing is counted down").isEmpty();
  }

  @Test
  void aListenWhoseClientLeftBeforeItsAckLeavesAnotherListenersSubscriptionInPlace() throws Exception {
    PooledChild child = child();
    ListenHub hub = new ListenHub(60_000, new ClientWatch(log), log);
    AtomicInteger writes = new AtomicInteger();
    CompletableFuture<Void> staying = CompletableFuture.runAsync(() -> {
      try {
        hub.serve(listen("staying"), child, ACCEPT, response(false, writes), Callback.NOOP);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    Await.until("the first listener to be subscribed", Duration.ofSeconds(5), () -> child.subscriptions.containsKey("db://a"));
    hub.serve(listen("gone"), child, ACCEPT, response(true, new AtomicInteger()), Callback.NOOP);
    assertThat(child.subscriptions).as("the staying listener still counts").containsEntry("db://a", 1);
    hub.close(5_000);
    staying.get(10, TimeUnit.SECONDS);
    assertThat(child.subscriptions).isEmpty();
  }
}
