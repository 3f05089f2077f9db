package dev.mcpstdio.conformance;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stdio MCP server with the surface the official MCP conformance suite's server scenarios
 * expect (the suite's "everything server": {@code test_*} tools, {@code test://} resources and
 * template, {@code test_*} prompts, completion, logging), built on the official Java SDK's stdio
 * transport, plus what the suite's 2026-07-28 scenarios call, written the 2025 era's way ({@link
 * ConformanceFixture2026Surface}); the JSON Schema 2020-12 tool has the keywords of both suites. {@link ConformanceServerIT} publishes it over Streamable HTTP with {@code mcp-stdio
 * serve} and runs the suite against the gateway.
 *
 * <p>Stdout is the JSON-RPC wire and nothing else: the SDK transport gets the real stdout while
 * {@link System#out} is pointed at stderr, so a stray {@code println} (or a library writing to
 * {@code System.out}) cannot corrupt the wire. SLF4J (jetty-slf4j-impl on the test classpath)
 * logs to stderr. Launch with {@code -Xlog:disable -Xlog:all=warning:stderr
 * -XX:+DisplayVMOutputToStderr} so the JVM writes nothing to stdout either.
 *
 * <p>The process exits when stdin reaches end of file (the gateway closed the session).
 */
public final class ConformanceFixtureServer {

  static final String NAME = "mcp-stdio-conformance-fixture";
  static final String VERSION = "1.0.0";

  /** A 1x1 red PNG. */
  static final String PNG_BASE64 =
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

  /** A tenth of a second of 8 kHz 8-bit mono silence as a WAV file. */
  static final String WAV_BASE64 = Base64.getEncoder().encodeToString(silentWav(800));

  private static final Pattern TEMPLATE_URI = Pattern.compile("test://template/([^/]+)/data");

  private ConformanceFixtureServer() {}

  public static void main(String[] args) throws InterruptedException {
    OutputStream wire = new FileOutputStream(FileDescriptor.out);
    System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
    CountDownLatch eof = new CountDownLatch(1);
    InputStream stdin = new EofSignallingInputStream(new FileInputStream(FileDescriptor.in), eof);

    McpJsonMapper json = McpJsonDefaults.getMapper();
    ConformanceFixture2026Surface surface2026 = new ConformanceFixture2026Surface(json);
    StdioServerTransportProvider transport = new StdioServerTransportProvider(json, stdin, wire);
    McpSyncServer server = McpServer.sync(transport)
        .serverInfo(NAME, VERSION)
        .jsonMapper(json)
        .requestTimeout(Duration.ofSeconds(60))
        .capabilities(McpSchema.ServerCapabilities.builder()
            .tools(true)
            .resources(true, true)
            .prompts(true)
            .logging()
            .completions()
            .build())
        .tools(concat(tools(json), surface2026.tools()))
        .resources(resources())
        .resourceTemplates(resourceTemplates())
        .prompts(concat(prompts(), surface2026.prompts()))
        .completions(completions())
        .build();
    surface2026.bind(server);

    eof.await();
    try {
      server.closeGracefully(); // the last answers drain before the JVM goes
    } catch (RuntimeException ignored) {
      // exiting anyway
    }
    System.exit(0);
  }

  // ---------------------------------------------------------------- tools

  private static List<McpServerFeatures.SyncToolSpecification> tools(McpJsonMapper json) {
    String noArgs = "{\"type\":\"object\",\"properties\":{}}";
    List<McpServerFeatures.SyncToolSpecification> tools = new ArrayList<>();

    tools.add(tool(json, "test_simple_text", "Returns a simple text response", noArgs,
        (exchange, request) -> result(new McpSchema.TextContent("This is a simple text response for testing."))));

    tools.add(tool(json, "test_image_content", "Returns a 1x1 red PNG image", noArgs,
        (exchange, request) -> result(new McpSchema.ImageContent(null, PNG_BASE64, "image/png"))));

    tools.add(tool(json, "test_audio_content", "Returns a short silent WAV clip", noArgs,
        (exchange, request) -> result(new McpSchema.AudioContent(null, WAV_BASE64, "audio/wav"))));

    tools.add(tool(json, "test_embedded_resource", "Returns an embedded text resource", noArgs,
        (exchange, request) -> result(new McpSchema.EmbeddedResource(null,
            new McpSchema.TextResourceContents(
                "test://embedded-resource", "text/plain", "This is an embedded resource content.")))));

    tools.add(tool(json, "test_multiple_content_types", "Returns text, image and resource content", noArgs,
        (exchange, request) -> result(
            new McpSchema.TextContent("Multiple content types test:"),
            new McpSchema.ImageContent(null, PNG_BASE64, "image/png"),
            new McpSchema.EmbeddedResource(null, new McpSchema.TextResourceContents(
                "test://mixed-content-resource", "application/json", "{\"test\":\"data\",\"value\":123}")))));

    tools.add(tool(json, "test_tool_with_logging", "Sends three info log notifications while running", noArgs,
        (exchange, request) -> {
          log(exchange, "Tool execution started");
          log(exchange, "Tool processing data");
          log(exchange, "Tool execution completed");
          return result(new McpSchema.TextContent("Tool with logging executed successfully"));
        }));

    tools.add(tool(json, "test_error_handling", "Always fails with isError: true", noArgs,
        (exchange, request) -> McpSchema.CallToolResult.builder()
            .addTextContent("This tool intentionally returns an error for testing")
            .isError(true)
            .build()));

    tools.add(tool(json, "test_tool_with_progress", "Reports progress 0, 50 and 100 of 100", noArgs,
        (exchange, request) -> {
          Object token = request.meta() == null ? null : request.meta().get("progressToken");
          for (int progress = 0; progress <= 100; progress += 50) {
            if (token != null) {
              exchange.progressNotification(new McpSchema.ProgressNotification(
                  token, (double) progress, 100.0, "Progress " + progress + "/100"));
            }
          }
          return result(new McpSchema.TextContent("Tool with progress executed successfully"));
        }));

    tools.add(tool(json, "test_sampling", "Asks the client to sample an LLM with the given prompt",
        "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\","
            + "\"description\":\"The prompt to send to the LLM\"}},\"required\":[\"prompt\"]}",
        (exchange, request) -> {
          if (exchange.getClientCapabilities() == null || exchange.getClientCapabilities().sampling() == null) {
            return error("Client does not support sampling");
          }
          String prompt = String.valueOf(arguments(request).getOrDefault("prompt", ""));
          McpSchema.CreateMessageResult sampled = exchange.createMessage(McpSchema.CreateMessageRequest.builder()
              .messages(List.of(new McpSchema.SamplingMessage(McpSchema.Role.USER, new McpSchema.TextContent(prompt))))
              .maxTokens(100)
              .build());
          String text = sampled.content() instanceof McpSchema.TextContent t ? t.text() : String.valueOf(sampled.content());
          return result(new McpSchema.TextContent("LLM response: " + text));
        }));

    tools.add(tool(json, "test_elicitation", "Asks the client for a username and an email address",
        "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\","
            + "\"description\":\"The message to show the user\"}},\"required\":[\"message\"]}",
        (exchange, request) -> {
          if (exchange.getClientCapabilities() == null || exchange.getClientCapabilities().elicitation() == null) {
            return error("Client does not support elicitation");
          }
          String message = String.valueOf(arguments(request).getOrDefault("message", ""));
          Map<String, Object> schema = object(
              "type", "object",
              "properties", object(
                  "username", object("type", "string", "description", "User's response"),
                  "email", object("type", "string", "description", "User's email address")),
              "required", List.of("username", "email"));
          return elicited(exchange, json, "User response", message, schema);
        }));

    tools.add(tool(json, "test_elicitation_sep1034_defaults",
        "Asks the client for an elicitation whose schema has defaults for every primitive type (SEP-1034)", noArgs,
        (exchange, request) -> {
          Map<String, Object> schema = object(
              "type", "object",
              "properties", object(
                  "name", object("type", "string", "description", "User name", "default", "John Doe"),
                  "age", object("type", "integer", "description", "User age", "default", 30),
                  "score", object("type", "number", "description", "User score", "default", 95.5),
                  "status", object("type", "string", "description", "User status",
                      "enum", List.of("active", "inactive", "pending"), "default", "active"),
                  "verified", object("type", "boolean", "description", "Verification status", "default", true)),
              "required", List.of());
          return elicited(exchange, json, "Elicitation completed", "Please review and update the form fields with defaults",
              schema);
        }));

    tools.add(tool(json, "test_elicitation_sep1330_enums",
        "Asks the client for an elicitation with all five enum schema variants (SEP-1330)", noArgs,
        (exchange, request) -> {
          Map<String, Object> schema = object(
              "type", "object",
              "properties", object(
                  "untitledSingle", object("type", "string", "description", "Untitled single-select",
                      "enum", List.of("option1", "option2", "option3")),
                  "titledSingle", object("type", "string", "description", "Titled single-select",
                      "oneOf", List.of(
                          object("const", "value1", "title", "First Option"),
                          object("const", "value2", "title", "Second Option"),
                          object("const", "value3", "title", "Third Option"))),
                  "legacyEnum", object("type", "string", "description", "Legacy titled enum",
                      "enum", List.of("opt1", "opt2", "opt3"),
                      "enumNames", List.of("Option One", "Option Two", "Option Three")),
                  "untitledMulti", object("type", "array", "description", "Untitled multi-select",
                      "items", object("type", "string", "enum", List.of("option1", "option2", "option3"))),
                  "titledMulti", object("type", "array", "description", "Titled multi-select",
                      "items", object("anyOf", List.of(
                          object("const", "value1", "title", "First Choice"),
                          object("const", "value2", "title", "Second Choice"),
                          object("const", "value3", "title", "Third Choice"))))),
              "required", List.of());
          return elicited(exchange, json, "Elicitation completed", "Please select options from the enum fields", schema);
        }));

    tools.add(tool(json, "json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features",
        "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
            + "\"$defs\":{\"address\":{\"$anchor\":\"addressDef\",\"type\":\"object\",\"properties\":{"
            + "\"street\":{\"type\":\"string\"},\"city\":{\"type\":\"string\"}}}},"
            + "\"properties\":{\"name\":{\"type\":\"string\"},\"address\":{\"$ref\":\"#/$defs/address\"},"
            + "\"contactMethod\":{\"type\":\"string\",\"enum\":[\"phone\",\"email\"]},"
            + "\"phone\":{\"type\":\"string\"},\"email\":{\"type\":\"string\"}},"
            + "\"allOf\":[{\"anyOf\":[{\"required\":[\"phone\"]},{\"required\":[\"email\"]}]}],"
            + "\"if\":{\"properties\":{\"contactMethod\":{\"const\":\"phone\"}},\"required\":[\"contactMethod\"]},"
            + "\"then\":{\"required\":[\"phone\"]},\"else\":{\"required\":[\"email\"]},"
            + "\"additionalProperties\":false}",
        (exchange, request) -> result(new McpSchema.TextContent(
            "JSON Schema 2020-12 tool called with " + json(json, arguments(request))))));

    // A stdio server cannot close the HTTP stream (that is the gateway's); the gateway's priming
    // event and event ids are what the SSE polling scenario checks.
    tools.add(tool(json, "test_reconnection", "Answers on a resumable stream (SSE polling test, SEP-1699)", noArgs,
        (exchange, request) -> result(new McpSchema.TextContent("Reconnection test completed successfully"))));

    return tools;
  }

  private static McpServerFeatures.SyncToolSpecification tool(
      McpJsonMapper json, String name, String description, String inputSchema,
      BiFunction<McpSyncServerExchange, McpSchema.CallToolRequest, McpSchema.CallToolResult> handler) {
    McpSchema.Tool tool = McpSchema.Tool.builder()
        .name(name)
        .description(description)
        .inputSchema(json, inputSchema)
        .build();
    return McpServerFeatures.SyncToolSpecification.builder().tool(tool).callHandler(handler).build();
  }

  private static McpSchema.CallToolResult result(McpSchema.Content... content) {
    return McpSchema.CallToolResult.builder().content(List.of(content)).isError(false).build();
  }

  private static McpSchema.CallToolResult error(String text) {
    return McpSchema.CallToolResult.builder().addTextContent(text).isError(true).build();
  }

  private static Map<String, Object> arguments(McpSchema.CallToolRequest request) {
    return request.arguments() == null ? Map.of() : request.arguments();
  }

  private static void log(McpSyncServerExchange exchange, String message) {
    exchange.loggingNotification(McpSchema.LoggingMessageNotification.builder(McpSchema.LoggingLevel.INFO, message)
        .logger("conformance-fixture")
        .build());
  }

  /** Asks the client to fill a form and reports, under {@code label}, the action and content that came back. */
  private static McpSchema.CallToolResult elicited(McpSyncServerExchange exchange, McpJsonMapper json, String label,
      String message, Map<String, Object> schema) {
    McpSchema.ElicitResult answer = exchange.createElicitation(McpSchema.ElicitFormRequest.builder(message, schema).build());
    return result(new McpSchema.TextContent(
        label + ": action=" + action(answer) + ", content=" + json(json, answer.content())));
  }

  private static String action(McpSchema.ElicitResult answer) {
    return answer.action() == null ? "null" : answer.action().name().toLowerCase(java.util.Locale.ROOT);
  }

  private static String json(McpJsonMapper json, Object value) {
    try {
      return json.writeValueAsString(value);
    } catch (IOException e) {
      return String.valueOf(value);
    }
  }

  // ---------------------------------------------------------------- resources

  private static List<McpServerFeatures.SyncResourceSpecification> resources() {
    return List.of(
        resource("test://static-text", "static-text", "A static text resource", "text/plain",
            uri -> new McpSchema.TextResourceContents(uri, "text/plain",
                "This is the content of the static text resource.")),
        resource("test://static-binary", "static-binary", "A static binary resource (1x1 PNG)", "image/png",
            uri -> new McpSchema.BlobResourceContents(uri, "image/png", PNG_BASE64)),
        resource("test://watched-resource", "watched-resource", "A resource clients may subscribe to", "text/plain",
            uri -> new McpSchema.TextResourceContents(uri, "text/plain", "Watched resource content")));
  }

  private static McpServerFeatures.SyncResourceSpecification resource(
      String uri, String name, String description, String mimeType,
      java.util.function.Function<String, McpSchema.ResourceContents> contents) {
    McpSchema.Resource resource = McpSchema.Resource.builder()
        .uri(uri)
        .name(name)
        .description(description)
        .mimeType(mimeType)
        .build();
    return new McpServerFeatures.SyncResourceSpecification(resource,
        (exchange, request) -> new McpSchema.ReadResourceResult(List.of(contents.apply(request.uri()))));
  }

  private static List<McpServerFeatures.SyncResourceTemplateSpecification> resourceTemplates() {
    McpSchema.ResourceTemplate template = McpSchema.ResourceTemplate.builder()
        .uriTemplate("test://template/{id}/data")
        .name("template-data")
        .description("A resource template: {id} is substituted into the data")
        .mimeType("application/json")
        .build();
    return List.of(new McpServerFeatures.SyncResourceTemplateSpecification(template, (exchange, request) -> {
      Matcher m = TEMPLATE_URI.matcher(request.uri());
      String id = m.matches() ? m.group(1) : "unknown";
      String text = "{\"id\":\"" + id + "\",\"templateTest\":true,\"data\":\"Data for ID: " + id + "\"}";
      return new McpSchema.ReadResourceResult(
          List.of(new McpSchema.TextResourceContents(request.uri(), "application/json", text)));
    }));
  }

  // ---------------------------------------------------------------- prompts and completion

  private static List<McpServerFeatures.SyncPromptSpecification> prompts() {
    return List.of(
        new McpServerFeatures.SyncPromptSpecification(
            new McpSchema.Prompt("test_simple_prompt", "A simple prompt without arguments", List.of()),
            (exchange, request) -> new McpSchema.GetPromptResult("A simple prompt", List.of(
                new McpSchema.PromptMessage(McpSchema.Role.USER,
                    new McpSchema.TextContent("This is a simple prompt for testing."))))),
        new McpServerFeatures.SyncPromptSpecification(
            new McpSchema.Prompt("test_prompt_with_arguments", "A prompt with two required arguments", List.of(
                new McpSchema.PromptArgument("arg1", "First test argument", true),
                new McpSchema.PromptArgument("arg2", "Second test argument", true))),
            (exchange, request) -> {
              Map<String, Object> a = request.arguments() == null ? Map.of() : request.arguments();
              return new McpSchema.GetPromptResult("A prompt with arguments", List.of(
                  new McpSchema.PromptMessage(McpSchema.Role.USER, new McpSchema.TextContent(
                      "Prompt with arguments: arg1='" + a.get("arg1") + "', arg2='" + a.get("arg2") + "'"))));
            }),
        new McpServerFeatures.SyncPromptSpecification(
            new McpSchema.Prompt("test_prompt_with_embedded_resource", "A prompt embedding a resource", List.of(
                new McpSchema.PromptArgument("resourceUri", "URI of the resource to embed", true))),
            (exchange, request) -> {
              Object uri = request.arguments() == null ? null : request.arguments().get("resourceUri");
              String resourceUri = uri == null ? "test://example-resource" : uri.toString();
              return new McpSchema.GetPromptResult("A prompt with an embedded resource", List.of(
                  new McpSchema.PromptMessage(McpSchema.Role.USER, new McpSchema.EmbeddedResource(null,
                      new McpSchema.TextResourceContents(resourceUri, "text/plain",
                          "Embedded resource content for testing."))),
                  new McpSchema.PromptMessage(McpSchema.Role.USER,
                      new McpSchema.TextContent("Please process the embedded resource above."))));
            }),
        new McpServerFeatures.SyncPromptSpecification(
            new McpSchema.Prompt("test_prompt_with_image", "A prompt with image content", List.of()),
            (exchange, request) -> new McpSchema.GetPromptResult("A prompt with an image", List.of(
                new McpSchema.PromptMessage(McpSchema.Role.USER,
                    new McpSchema.ImageContent(null, PNG_BASE64, "image/png")),
                new McpSchema.PromptMessage(McpSchema.Role.USER,
                    new McpSchema.TextContent("Please analyze the image above."))))));
  }

  private static List<McpServerFeatures.SyncCompletionSpecification> completions() {
    List<String> words = List.of("paris", "park", "party", "test", "testing", "tested");
    return List.of(new McpServerFeatures.SyncCompletionSpecification(
        new McpSchema.PromptReference("test_prompt_with_arguments"),
        (exchange, request) -> {
          String prefix = request.argument() == null || request.argument().value() == null
              ? "" : request.argument().value();
          List<String> values = words.stream().filter(w -> w.startsWith(prefix)).toList();
          return new McpSchema.CompleteResult(
              new McpSchema.CompleteResult.CompleteCompletion(values, values.size(), false));
        }));
  }

  // ---------------------------------------------------------------- helpers

  private static <T> List<T> concat(List<T> first, List<T> second) {
    List<T> all = new ArrayList<>(first);
    all.addAll(second);
    return all;
  }

  /** An insertion-ordered map from alternating keys and values. */
  private static Map<String, Object> object(Object... keysAndValues) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return map;
  }

  /** A PCM WAV file of {@code samples} bytes of silence, 8 kHz, 8-bit, mono. */
  private static byte[] silentWav(int samples) {
    ByteBuffer header = ByteBuffer.allocate(44).order(ByteOrder.LITTLE_ENDIAN);
    header.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt(36 + samples)
        .put("WAVE".getBytes(StandardCharsets.US_ASCII))
        .put("fmt ".getBytes(StandardCharsets.US_ASCII)).putInt(16)
        .putShort((short) 1).putShort((short) 1).putInt(8000).putInt(8000).putShort((short) 1).putShort((short) 8)
        .put("data".getBytes(StandardCharsets.US_ASCII)).putInt(samples);
    ByteArrayOutputStream out = new ByteArrayOutputStream(44 + samples);
    out.writeBytes(header.array());
    for (int i = 0; i < samples; i++) {
      out.write(0x80);
    }
    return out.toByteArray();
  }

  /** Stdin that opens a latch when it reaches end of file (or fails). */
  private static final class EofSignallingInputStream extends FilterInputStream {
    private final CountDownLatch eof;

    EofSignallingInputStream(InputStream in, CountDownLatch eof) {
      super(in);
      this.eof = eof;
    }

    @Override
    public int read() throws IOException {
      try {
        int b = super.read();
        if (b < 0) {
          eof.countDown();
        }
        return b;
      } catch (IOException e) {
        eof.countDown();
        throw e;
      }
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      try {
        int n = super.read(buffer, offset, length);
        if (n < 0) {
          eof.countDown();
        }
        return n;
      } catch (IOException e) {
        eof.countDown();
        throw e;
      }
    }
  }
}
