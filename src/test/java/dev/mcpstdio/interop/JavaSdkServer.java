package dev.mcpstdio.interop;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The official Java MCP SDK's Streamable HTTP server ({@link
 * HttpServletStreamableServerTransportProvider}) in an embedded Jetty ee10 servlet context on a
 * loopback port, with the tools, resource and prompt the interop tests use. Every HTTP request is
 * recorded (method and session header) so tests can see, for example, the relay's DELETE.
 */
final class JavaSdkServer implements AutoCloseable {

  static final String NAME = "java-sdk-interop";
  static final String VERSION = "2.1.0-test";

  /** One HTTP request as the servlet saw it. */
  record Hit(String method, String sessionId, String authorization) {}

  final List<Hit> hits = new CopyOnWriteArrayList<>();
  /** Opened by {@code gate} when it starts waiting; the test opens {@link #release}. */
  volatile CountDownLatch gateEntered = new CountDownLatch(1);
  volatile CountDownLatch release = new CountDownLatch(1);

  private final Server jetty;
  private final ServerConnector connector;
  private final McpSyncServer mcp;

  JavaSdkServer() {
    HttpServletStreamableServerTransportProvider transport =
        HttpServletStreamableServerTransportProvider.builder()
            .jsonMapper(McpJsonDefaults.getMapper())
            .mcpEndpoint("/mcp")
            .build();
    mcp =
        McpServer.sync(transport)
            .serverInfo(NAME, VERSION)
            .requestTimeout(java.time.Duration.ofSeconds(30))
            .capabilities(
                McpSchema.ServerCapabilities.builder()
                    .tools(true)
                    .resources(false, false)
                    .prompts(false)
                    .logging()
                    .build())
            .tools(tools())
            .resources(resource())
            .prompts(prompt())
            .build();

    jetty = new Server(new org.eclipse.jetty.util.thread.QueuedThreadPool(64, 4));
    connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler("/");
    ServletHolder holder = new ServletHolder(transport);
    holder.setAsyncSupported(true);
    context.addServlet(holder, "/*");
    Filter recorder =
        (request, response, chain) -> {
          HttpServletRequest http = (HttpServletRequest) request;
          hits.add(new Hit(http.getMethod(), http.getHeader("Mcp-Session-Id"), http.getHeader("Authorization")));
          chain.doFilter(request, response);
        };
    FilterHolder filter = new FilterHolder(recorder);
    filter.setAsyncSupported(true);
    context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
    jetty.setHandler(context);
    try {
      jetty.start();
    } catch (Exception e) {
      throw new IllegalStateException("cannot start the Java SDK server", e);
    }
  }

  URI url() {
    return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/mcp");
  }

  private static McpSchema.Tool tool(String name, String description, String schemaJson) {
    return McpSchema.Tool.builder()
        .name(name)
        .description(description)
        .inputSchema(McpJsonDefaults.getMapper(), schemaJson)
        .build();
  }

  private static McpSchema.CallToolResult text(String text) {
    return McpSchema.CallToolResult.builder().addTextContent(text).isError(false).build();
  }

  private List<McpServerFeatures.SyncToolSpecification> tools() {
    String textSchema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}";
    return List.of(
        spec(tool("echo", "Echo text back", textSchema),
            (exchange, request) -> text((String) request.arguments().get("text"))),
        spec(tool("add", "Add two integers",
                "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}"),
            (exchange, request) -> {
              long a = ((Number) request.arguments().get("a")).longValue();
              long b = ((Number) request.arguments().get("b")).longValue();
              return text(String.valueOf(a + b));
            }),
        spec(tool("progress", "Reports `steps` progress notifications, then returns",
                "{\"type\":\"object\",\"properties\":{\"steps\":{\"type\":\"integer\"}}}"),
            (exchange, request) -> {
              int steps = ((Number) request.arguments().getOrDefault("steps", 3)).intValue();
              Object token = request.meta() == null ? null : request.meta().get("progressToken");
              for (int i = 1; i <= steps; i++) {
                if (token != null) {
                  exchange.progressNotification(
                      new McpSchema.ProgressNotification(token, (double) i, (double) steps, "step " + i + "/" + steps));
                }
              }
              return text("progressed " + steps + (token == null ? " without token" : ""));
            }),
        spec(tool("gate", "Blocks until the test releases it (bounded by 20 s)", "{\"type\":\"object\"}"),
            (exchange, request) -> {
              gateEntered.countDown();
              try {
                boolean released = release.await(20, TimeUnit.SECONDS);
                return text(released ? "released" : "gate timed out");
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return text("interrupted");
              }
            }),
        spec(tool("sample", "Asks the host to sample (sampling/createMessage)", textSchema),
            (exchange, request) -> {
              McpSchema.CreateMessageResult result =
                  exchange.createMessage(
                      McpSchema.CreateMessageRequest.builder()
                          .messages(List.of(new McpSchema.SamplingMessage(
                              McpSchema.Role.USER, new McpSchema.TextContent((String) request.arguments().get("text")))))
                          .maxTokens(50)
                          .build());
              return text(((McpSchema.TextContent) result.content()).text() + " [model=" + result.model() + "]");
            }),
        spec(tool("elicit", "Asks the host for a form elicitation", "{\"type\":\"object\"}"),
            (exchange, request) -> {
              McpSchema.ElicitResult result =
                  exchange.createElicitation(
                      McpSchema.ElicitFormRequest.builder(
                              "Is it ok?",
                              Map.of("type", "object",
                                  "properties", Map.of("ok", Map.of("type", "boolean")),
                                  "required", List.of("ok")))
                          .build());
              return text(result.action() + " " + result.content());
            }));
  }

  private static McpServerFeatures.SyncToolSpecification spec(
      McpSchema.Tool tool,
      java.util.function.BiFunction<McpSyncServerExchange, McpSchema.CallToolRequest, McpSchema.CallToolResult> handler) {
    return McpServerFeatures.SyncToolSpecification.builder().tool(tool).callHandler(handler).build();
  }

  private static McpServerFeatures.SyncResourceSpecification resource() {
    McpSchema.Resource hello =
        McpSchema.Resource.builder().uri("test://hello").name("hello").mimeType("text/plain").description("Greeting").build();
    return new McpServerFeatures.SyncResourceSpecification(
        hello,
        (exchange, request) ->
            new McpSchema.ReadResourceResult(
                List.of(new McpSchema.TextResourceContents(request.uri(), "text/plain", "hello from java"))));
  }

  private static McpServerFeatures.SyncPromptSpecification prompt() {
    McpSchema.Prompt greet =
        new McpSchema.Prompt("greet", "Greet someone", List.of(new McpSchema.PromptArgument("name", "Who", true)));
    return new McpServerFeatures.SyncPromptSpecification(
        greet,
        (exchange, request) ->
            new McpSchema.GetPromptResult(
                "greeting",
                List.of(new McpSchema.PromptMessage(
                    McpSchema.Role.USER, new McpSchema.TextContent("Hello, " + request.arguments().get("name") + "!")))));
  }

  @Override
  public void close() {
    release.countDown();
    try {
      mcp.close();
    } catch (RuntimeException ignored) {
      // best effort
    }
    try {
      jetty.stop();
    } catch (Exception ignored) {
      // best effort
    }
  }
}
