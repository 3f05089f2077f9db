package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.examples.session.ExampleSessionServer;
import dev.mcpstdio.process.ChildSpec;
import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.Threads;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end through the example in {@code examples/session-server}: the official Java SDK's client
 * → {@code serve} → one example server per session (the Java SDK's stdio server with the session
 * kit), the way its README runs it. Decisions reach the client as elicitations, or a host UI
 * through the events API, and their answers complete the tools.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ServeSessionExampleTest {

  @TempDir
  Path workspaces;

  private final List<McpSchema.ElicitFormRequest> forms = new CopyOnWriteArrayList<>();
  private final List<McpSchema.ElicitUrlRequest> signIns = new CopyOnWriteArrayList<>();
  private final List<McpSchema.ElicitationCompleteNotification> completed = new CopyOnWriteArrayList<>();
  private final AtomicReference<String> sessionId = new AtomicReference<>();

  /** serve hosting the example, with the session config on argv as the README shows. */
  private ServeHarness serve(Duration callbackTimeout) throws Exception {
    String java = ProcessHandle.current().info().command().orElseThrow();
    ChildSpec example = new ChildSpec(List.of(java, "-Xlog:disable", "-Xlog:all=warning:stderr",
        "-XX:+DisplayVMOutputToStderr", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"), ExampleSessionServer.class.getName()));
    return ServeHarness.start(ServeHarness.config(example).withLaunch(new ServeConfig.SessionLaunch(
        List.of("--session-id", "{sessionId}", "--workspace-root", "{workspaceRoot}", "--plans-folder", "{plansFolder}",
            "--crm-sign-in-url", "https://crm.example/login"),
        workspaces, false, callbackTimeout)));
  }

  private McpSyncClient client(ServeHarness serve, Consumer<McpClient.SyncSpec> elicitation) {
    HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport
        .builder("http://127.0.0.1:" + serve.gateway.port()).endpoint("/mcp")
        .httpRequestCustomizer((builder, method, uri, body, context) -> // the session id, as a host UI would know it
            builder.copy().build().headers().firstValue("Mcp-Session-Id").ifPresent(sessionId::set))
        .build();
    McpClient.SyncSpec spec = McpClient.sync(transport)
        .requestTimeout(Duration.ofSeconds(60))
        .clientInfo(new McpSchema.Implementation("example-e2e", "1.0.0"));
    elicitation.accept(spec);
    return spec.build();
  }

  private static McpSchema.CallToolResult call(McpSyncClient client, String tool, Map<String, Object> arguments) {
    return client.callTool(new McpSchema.CallToolRequest(tool, arguments));
  }

  private static CompletableFuture<McpSchema.CallToolResult> callLater(McpSyncClient client, String tool,
      Map<String, Object> arguments) {
    return CompletableFuture.supplyAsync(() -> call(client, tool, arguments), Threads.VIRTUAL);
  }

  private static String text(McpSchema.CallToolResult result) {
    return ((McpSchema.TextContent) result.content().getFirst()).text();
  }

  @Test
  void aPlanIsApprovedOrDeclinedByTheClientsAnswerToAnElicitation() throws Exception {
    try (ServeHarness serve = serve(Duration.ofSeconds(60));
        McpSyncClient client = client(serve, spec -> spec
            .capabilities(McpSchema.ClientCapabilities.builder().elicitation().build())
            .elicitation(request -> {
              forms.add(request);
              return new McpSchema.ElicitResult(request.message().contains("Ship it")
                  ? McpSchema.ElicitResult.Action.ACCEPT : McpSchema.ElicitResult.Action.DECLINE, Map.of());
            }))) {
      assertThat(client.initialize().serverInfo().name()).isEqualTo("mcp-stdio-example-session-server");

      McpSchema.CallToolResult approved = call(client, "submit_plan", Map.of("title", "Ship it", "steps", List.of("build", "deploy")));
      assertThat(approved.isError()).isFalse();
      assertThat(text(approved)).startsWith("Plan approved: ").endsWith("plan-1.md. Go ahead with it.");
      Path plan = Path.of(text(approved).substring("Plan approved: ".length(), text(approved).indexOf(". Go ahead")));
      assertThat(plan).startsWith(workspaces);
      assertThat(plan.getParent().getFileName()).hasToString("plans");
      assertThat(Files.readString(plan)).isEqualTo("# Ship it\n\n1. build\n2. deploy\n");
      assertThat(forms).singleElement().satisfies(f -> assertThat(f.message()).isEqualTo("Approve the plan \"Ship it\"?"));

      McpSchema.CallToolResult declined = call(client, "submit_plan", Map.of("title", "Drop the database", "steps", List.of("drop")));
      assertThat(text(declined)).startsWith("The user declined the plan ").contains("plan-2.md");
      serve.awaitLog("callback plan_ready");
    }
  }

  @Test
  void aSignInByUrlCompletesWhenTheHostHandsTheCredentialOff() throws Exception {
    try (ServeHarness serve = serve(Duration.ofSeconds(60));
        McpSyncClient client = client(serve, spec -> spec
            .capabilities(McpSchema.ClientCapabilities.builder().elicitation(true, true).build())
            .elicitation(request -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.DECLINE, Map.of()))
            .urlElicitation(request -> {
              signIns.add(request); // the user is sent to the page; accepting says only that
              return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, null);
            })
            .elicitationCompleteConsumer(completed::add))) {
      client.initialize();
      CompletableFuture<McpSchema.CallToolResult> lookup = callLater(client, "crm_lookup", Map.of("customer", "ACME"));
      Await.until("the client to be asked to sign in", Duration.ofSeconds(30), () -> !signIns.isEmpty());
      McpSchema.ElicitUrlRequest signIn = signIns.getFirst();
      assertThat(signIn.url()).isEqualTo("https://crm.example/login");
      assertThat(signIn.message()).isEqualTo("Sign in to the CRM to look up ACME");
      serve.awaitLog("waiting for the host to hand off the crm credential"); // the child got the client's accept
      assertThat(lookup).isNotDone(); // the tool waits for the sign-in to finish, not for the consent

      // the host finished the sign-in: it hands the credential off to the session's server
      HttpResponse<String> handoff = serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/credentials/crm"))
          .header("Mcp-Session-Id", sessionId.get())
          .PUT(HttpRequest.BodyPublishers.ofString("{\"value\":\"crm-token-0123456789\",\"expiresAt\":\"2099-01-01T00:00:00Z\"}"))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(handoff.statusCode()).isEqualTo(200);

      McpSchema.CallToolResult result = lookup.get(30, TimeUnit.SECONDS);
      assertThat(result.isError()).isFalse();
      assertThat(text(result)).isEqualTo(
          "Customer ACME: active since 2021, 3 open tickets (signed in to the CRM with a 20-character token).");
      Await.until("the client to hear the sign-in finished", Duration.ofSeconds(10), () -> !completed.isEmpty());
      assertThat(completed).singleElement().satisfies(c -> assertThat(c.elicitationId()).isEqualTo(signIn.elicitationId()));

      assertThat(text(call(client, "crm_lookup", Map.of("customer", "Initech")))).startsWith("Customer Initech:");
      assertThat(signIns).hasSize(1); // the credential is reused until it expires
      assertThat(serve.log()).doesNotContain("crm-token-0123456789");
    }
  }

  @Test
  void aClientWithoutElicitationIsServedThroughTheEventsApi() throws Exception {
    try (ServeHarness serve = serve(Duration.ofSeconds(60));
        McpSyncClient client = client(serve, spec -> {})) {
      client.initialize();
      client.ping(); // a request after initialize: the session id is known
      HttpResponse<Stream<String>> events = serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/callbacks"))
          .header("Accept", "text/event-stream").header("Mcp-Session-Id", sessionId.get()).build(),
          HttpResponse.BodyHandlers.ofLines());
      CompletableFuture<McpSchema.CallToolResult> plan = callLater(client, "submit_plan", Map.of("title", "Rotate keys",
          "steps", List.of("rotate")));
      Iterator<String> lines = events.body().iterator();
      String data = ServeHarness.nextEvent(lines);
      assertThat(data).contains("\"type\":\"plan_ready\"").contains("Approve the plan \\\"Rotate keys\\\"?");
      String callbackId = data.replaceAll(".*\"id\":\"(cb-[0-9a-f]+)\".*", "$1");
      HttpResponse<String> reply = serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/callbacks/" + callbackId + "/reply"))
          .header("Mcp-Session-Id", sessionId.get()).POST(HttpRequest.BodyPublishers.ofString("{\"action\":\"accept\"}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(reply.statusCode()).isEqualTo(200);
      assertThat(text(plan.get(30, TimeUnit.SECONDS))).startsWith("Plan approved: ");
      events.body().close();
    }
  }

  @Test
  void aDecisionNobodyMakesTimesOutAndTheToolSaysSo() throws Exception {
    try (ServeHarness serve = serve(Duration.ofSeconds(1));
        McpSyncClient client = client(serve, spec -> {})) {
      client.initialize();
      McpSchema.CallToolResult result = call(client, "submit_plan", Map.of("title", "Unattended", "steps", List.of()));
      assertThat(result.isError()).isTrue();
      assertThat(text(result)).startsWith("No decision on the plan in time");
    }
  }

  @Test
  void aCredentialHandedOffBeforeTheClientAnswersStillFinishesItsSignIn() throws Exception {
    java.util.concurrent.CountDownLatch handedOff = new java.util.concurrent.CountDownLatch(1);
    try (ServeHarness serve = serve(Duration.ofSeconds(60));
        McpSyncClient client = client(serve, spec -> spec
            .capabilities(McpSchema.ClientCapabilities.builder().elicitation(true, true).build())
            .elicitation(request -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.DECLINE, Map.of()))
            .urlElicitation(request -> {
              signIns.add(request);
              try {
                handedOff.await(30, TimeUnit.SECONDS); // the user finished before the client answered
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, null);
            })
            .elicitationCompleteConsumer(completed::add))) {
      client.initialize();
      CompletableFuture<McpSchema.CallToolResult> lookup = callLater(client, "crm_lookup", Map.of("customer", "ACME"));
      Await.until("the client to be asked to sign in", Duration.ofSeconds(30), () -> !signIns.isEmpty());
      HttpResponse<String> handoff = serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/credentials/crm"))
          .header("Mcp-Session-Id", sessionId.get()).PUT(HttpRequest.BodyPublishers.ofString("{\"value\":\"early-token\"}"))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(handoff.body()).isEqualTo("{\"written\":true,\"answered\":1}");
      assertThat(text(lookup.get(30, TimeUnit.SECONDS))).startsWith("Customer ACME:");
      Await.until("the client to hear the sign-in finished", Duration.ofSeconds(10), () -> !completed.isEmpty());
      assertThat(completed).singleElement()
          .satisfies(c -> assertThat(c.elicitationId()).isEqualTo(signIns.getFirst().elicitationId()));
      handedOff.countDown(); // the client's late accept is taken by the gateway and goes nowhere
      assertThat(text(call(client, "crm_lookup", Map.of("customer", "Initech")))).startsWith("Customer Initech:");
    }
  }
}
