package dev.mcpstdio.conformance;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSession;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import reactor.core.publisher.Mono;
import reactor.util.function.Tuple3;

/**
 * The tools and the prompt that the conformance suite's 2026-07-28 server scenarios (0.2.0-alpha.12,
 * {@code --requirements 2026-07-28}) call, written the way a <em>2025-era</em> server writes them:
 * where the suite's own 2026 fixture answers {@code input_required}, these send real
 * server-to-client requests ({@code elicitation/create}, {@code sampling/createMessage}, {@code
 * roots/list}) and use the answers. A gateway in front of this child (serve's reverse MRTR bridge)
 * is what turns those requests into {@code input_required} rounds; the child never learns that the
 * 2026 era exists. Part of {@link ConformanceFixtureServer}'s surface, so the 2025-era suites run
 * against it too.
 *
 * <p>The names, messages and schemas are the suite's (see each scenario's description: {@code
 * node <cli> list}, the scenario sources in the package); the answers are 2025-style text results.
 * Where a scenario needs several inputs in one round ({@link #MULTIPLE_INPUTS}), the three requests
 * are sent in one burst, every one of them written before any answer is awaited, as a 2025 server
 * that asks concurrently does; a gateway can only batch what arrives together. The elicitation
 * tool names its question's key ({@code user_name}, which the scenarios expect) in {@code
 * _meta["dev.mcp-stdio/inputKey"]}, serve's bridge's convention for a 2025 server's keys; the
 * others leave the key to the bridge (their request ids).
 *
 * <p>Capabilities: every request goes through the Java SDK's exchange, which refuses one the
 * client did not declare at {@code initialize}, except {@link #MISSING_CAPABILITY}, which models a
 * server that relies on a capability the client never declared (the case the 2026 era's {@code
 * -32021} exists for) and so sends its {@code sampling/createMessage} unchecked.
 */
final class ConformanceFixture2026Surface {

  /** The {@code _meta} member by which a 2025-era child names its question's key in serve's bridge (ReverseBridge). */
  static final String INPUT_KEY_META = "dev.mcp-stdio/inputKey";

  static final String ELICITATION = "test_input_required_result_elicitation";
  static final String SAMPLING = "test_input_required_result_sampling";
  static final String LIST_ROOTS = "test_input_required_result_list_roots";
  static final String REQUEST_STATE = "test_input_required_result_request_state";
  static final String MULTIPLE_INPUTS = "test_input_required_result_multiple_inputs";
  static final String MULTI_ROUND = "test_input_required_result_multi_round";
  static final String CAPABILITIES = "test_input_required_result_capabilities";
  static final String TAMPERED_STATE = "test_input_required_result_tampered_state";
  static final String MISSING_CAPABILITY = "test_missing_capability";
  static final String STREAMING_ELICITATION = "test_streaming_elicitation";
  static final String LOGGING_TOOL = "test_logging_tool";
  static final String TRIGGER_TOOL_CHANGE = "test_trigger_tool_change";
  static final String TRIGGER_PROMPT_CHANGE = "test_trigger_prompt_change";
  static final String HEADER_PARAM_TOOL = "test_header_param";
  static final String PROMPT = "test_input_required_result_prompt";

  /**
   * The tool and prompt the triggers add and remove in turn (so the lists stay bounded); the SDK
   * sends the list_changed notification for each change, since the server declares listChanged.
   */
  static final String DYNAMIC_TOOL = "test_dynamic_tool";
  static final String DYNAMIC_PROMPT = "test_dynamic_prompt";

  /** Our bound on one server-to-client request (the SDK's own is the server's request timeout). */
  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(60);

  private static final String NO_ARGS = "{\"type\":\"object\",\"properties\":{}}";

  private static final TypeRef<McpSchema.CreateMessageResult> CREATE_MESSAGE_RESULT = new TypeRef<>() {};

  private final McpJsonMapper json;
  /** Set once the server is built; the triggers change its lists. */
  private final AtomicReference<McpSyncServer> server = new AtomicReference<>();

  ConformanceFixture2026Surface(McpJsonMapper json) {
    this.json = json;
  }

  /** Hands the built server to the list-change triggers. */
  void bind(McpSyncServer built) {
    server.set(built);
  }

  // ---------------------------------------------------------------- tools

  List<McpServerFeatures.SyncToolSpecification> tools() {
    List<McpServerFeatures.SyncToolSpecification> tools = new ArrayList<>();

    tools.add(tool(ELICITATION, "Asks the user's name (elicitation) and greets them", NO_ARGS, (exchange, request) -> {
      // names its question's key as the scenario expects (serve's bridge keys by the child's request id otherwise)
      McpSchema.ElicitResult answer = exchange.createElicitation(form("What is your name?", "name", "string",
          Map.of(INPUT_KEY_META, "user_name")));
      return text(accepted(answer) ? "Hello, " + answer.content().get("name") + "!" : "Hello, stranger! (" + action(answer) + ")");
    }));

    tools.add(tool(SAMPLING, "Asks the client's model for the capital of France (sampling)", NO_ARGS,
        (exchange, request) -> text("Sampled: " + sampledText(exchange.createMessage(
            sampling("What is the capital of France?", 100))))));

    tools.add(tool(LIST_ROOTS, "Lists the client's roots (roots/list)", NO_ARGS,
        (exchange, request) -> text("Client roots: " + rootUris(exchange.listRoots()))));

    tools.add(tool(REQUEST_STATE, "Asks for a confirmation (elicitation); answers state-ok once confirmed", NO_ARGS,
        (exchange, request) -> {
          McpSchema.ElicitResult answer = exchange.createElicitation(form("Please confirm", "ok", "boolean"));
          return text("state-ok: confirmation " + action(answer) + ", content=" + json(answer.content()));
        }));

    tools.add(tool(MULTIPLE_INPUTS, "Asks for a name, a sampled greeting and the roots in one burst", NO_ARGS,
        (exchange, request) -> {
          McpAsyncServerExchange async = asyncOf(exchange);
          // Mono.zip subscribes to the three in turn, and each request is written on subscription:
          // all three are on the wire before the first answer is awaited.
          Tuple3<McpSchema.ElicitResult, McpSchema.CreateMessageResult, McpSchema.ListRootsResult> answers = Mono.zip(
              async.createElicitation(form("What is your name?", "name", "string")),
              async.createMessage(sampling("Generate a greeting", 50)),
              async.listRoots()).block(ASK_TIMEOUT);
          return text("name=" + (accepted(answers.getT1()) ? answers.getT1().content().get("name") : action(answers.getT1()))
              + ", greeting=" + sampledText(answers.getT2()) + ", roots=" + rootUris(answers.getT3()));
        }));

    tools.add(tool(MULTI_ROUND, "Asks two questions, one after the other (two elicitations)", NO_ARGS,
        (exchange, request) -> {
          McpSchema.ElicitResult name = exchange.createElicitation(form("Step 1: What is your name?", "name", "string"));
          if (!accepted(name)) {
            return text("Stopped at step 1: " + action(name));
          }
          McpSchema.ElicitResult color = exchange.createElicitation(
              form("Step 2: What is your favorite color?", "color", "string"));
          return text(accepted(color)
              ? "Hello " + name.content().get("name") + ", your favorite color is " + color.content().get("color") + "."
              : "Stopped at step 2: " + action(color));
        }));

    tools.add(tool(CAPABILITIES, "Asks only what the client declared it can answer (sampling, elicitation)", NO_ARGS,
        (exchange, request) -> {
          McpSchema.ClientCapabilities declared = exchange.getClientCapabilities();
          List<String> answers = new ArrayList<>();
          if (declared != null && declared.sampling() != null) {
            answers.add("sampling=" + sampledText(exchange.createMessage(sampling("Say hello", 50))));
          }
          if (declared != null && declared.elicitation() != null) {
            McpSchema.ElicitResult answer = exchange.createElicitation(form("What is your name?", "name", "string"));
            answers.add("elicitation=" + action(answer));
          }
          return text(answers.isEmpty() ? "The client declared neither sampling nor elicitation" : String.join(", ", answers));
        }));

    tools.add(tool(TAMPERED_STATE, "Asks for a confirmation (elicitation); the gateway's state must resist tampering",
        NO_ARGS, (exchange, request) -> {
          McpSchema.ElicitResult answer = exchange.createElicitation(form("Please confirm", "ok", "boolean"));
          return text("Confirmation " + action(answer));
        }));

    tools.add(tool(MISSING_CAPABILITY, "Relies on sampling without checking that the client declared it", NO_ARGS,
        (exchange, request) -> text("Sampled: " + sampledText(sessionOf(exchange)
            .sendRequest(McpSchema.METHOD_SAMPLING_CREATE_MESSAGE, sampling("Say hello", 20), CREATE_MESSAGE_RESULT)
            .block(ASK_TIMEOUT)))));

    tools.add(tool(STREAMING_ELICITATION, "Reports progress, then asks for a name (elicitation) mid-call", NO_ARGS,
        (exchange, request) -> {
          Object token = request.meta() == null ? null : request.meta().get("progressToken");
          if (token != null) {
            exchange.progressNotification(new McpSchema.ProgressNotification(token, 1.0, 2.0, "Asking for a name"));
          }
          McpSchema.ElicitResult answer = exchange.createElicitation(form("What is your name?", "name", "string"));
          return text("Streaming elicitation " + action(answer));
        }));

    tools.add(tool(LOGGING_TOOL, "Logs three info messages while running", NO_ARGS, (exchange, request) -> {
      for (String message : List.of("Logging tool started", "Logging tool working", "Logging tool finished")) {
        exchange.loggingNotification(McpSchema.LoggingMessageNotification.builder(McpSchema.LoggingLevel.INFO, message)
            .logger("conformance-fixture")
            .build());
      }
      return text("Logging tool done");
    }));

    tools.add(tool(TRIGGER_TOOL_CHANGE, "Adds or removes " + DYNAMIC_TOOL + " (tools/list_changed follows)", NO_ARGS,
        (exchange, request) -> {
          McpSyncServer s = server.get();
          boolean present = s.listTools().stream().anyMatch(t -> t.name().equals(DYNAMIC_TOOL));
          if (present) {
            s.removeTool(DYNAMIC_TOOL);
          } else {
            s.addTool(tool(DYNAMIC_TOOL, "Added by " + TRIGGER_TOOL_CHANGE, NO_ARGS,
                (e, r) -> text("The dynamic tool answers")));
          }
          return text(DYNAMIC_TOOL + (present ? " removed" : " added"));
        }));

    tools.add(tool(TRIGGER_PROMPT_CHANGE, "Adds or removes " + DYNAMIC_PROMPT + " (prompts/list_changed follows)", NO_ARGS,
        (exchange, request) -> {
          McpSyncServer s = server.get();
          boolean present = s.listPrompts().stream().anyMatch(p -> p.name().equals(DYNAMIC_PROMPT));
          if (present) {
            s.removePrompt(DYNAMIC_PROMPT);
          } else {
            s.addPrompt(new McpServerFeatures.SyncPromptSpecification(
                new McpSchema.Prompt(DYNAMIC_PROMPT, "Added by " + TRIGGER_PROMPT_CHANGE, List.of()),
                (e, r) -> new McpSchema.GetPromptResult("A dynamic prompt", List.of(new McpSchema.PromptMessage(
                    McpSchema.Role.USER, new McpSchema.TextContent("The dynamic prompt."))))));
          }
          return text(DYNAMIC_PROMPT + (present ? " removed" : " added"));
        }));

    // A string parameter mirrored in a custom header (x-mcp-header, 2026 era): the gateway, not
    // this child, sees the HTTP headers and must check Mcp-Param-Region against the body.
    tools.add(tool(HEADER_PARAM_TOOL, "Echoes a region that a 2026 client also sends as Mcp-Param-Region",
        "{\"type\":\"object\",\"properties\":{\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\","
            + "\"description\":\"A region name\"}},\"required\":[\"region\"]}",
        (exchange, request) -> text("region=" + (request.arguments() == null ? null : request.arguments().get("region")))));

    return tools;
  }

  // ---------------------------------------------------------------- prompts

  List<McpServerFeatures.SyncPromptSpecification> prompts() {
    return List.of(new McpServerFeatures.SyncPromptSpecification(
        new McpSchema.Prompt(PROMPT, "A prompt that asks the user for its context (elicitation)", List.of()),
        (exchange, request) -> {
          McpSchema.ElicitResult answer = exchange.createElicitation(
              form("What context should the prompt use?", "context", "string"));
          String context = accepted(answer) ? String.valueOf(answer.content().get("context")) : "(none: " + action(answer) + ")";
          return new McpSchema.GetPromptResult("A prompt built from elicited context", List.of(new McpSchema.PromptMessage(
              McpSchema.Role.USER, new McpSchema.TextContent("Use this context: " + context))));
        }));
  }

  // ---------------------------------------------------------------- helpers

  private McpServerFeatures.SyncToolSpecification tool(String name, String description, String inputSchema,
      BiFunction<McpSyncServerExchange, McpSchema.CallToolRequest, McpSchema.CallToolResult> handler) {
    McpSchema.Tool tool = McpSchema.Tool.builder().name(name).description(description).inputSchema(json, inputSchema).build();
    return McpServerFeatures.SyncToolSpecification.builder().tool(tool).callHandler(handler).build();
  }

  private static McpSchema.CallToolResult text(String text) {
    return McpSchema.CallToolResult.builder().addTextContent(text).isError(false).build();
  }

  /** A form elicitation for one required property. */
  private static McpSchema.ElicitRequest form(String message, String property, String type) {
    return form(message, property, type, null);
  }

  /** The same with the request's {@code _meta} ({@code null}: none). */
  private static McpSchema.ElicitRequest form(String message, String property, String type, Map<String, Object> meta) {
    Map<String, Object> schema = new LinkedHashMap<>();
    schema.put("type", "object");
    schema.put("properties", Map.of(property, Map.of("type", type)));
    schema.put("required", List.of(property));
    return McpSchema.ElicitFormRequest.builder(message, schema).meta(meta).build();
  }

  private static McpSchema.CreateMessageRequest sampling(String prompt, int maxTokens) {
    return McpSchema.CreateMessageRequest.builder()
        .messages(List.of(new McpSchema.SamplingMessage(McpSchema.Role.USER, new McpSchema.TextContent(prompt))))
        .maxTokens(maxTokens)
        .build();
  }

  private static boolean accepted(McpSchema.ElicitResult answer) {
    return answer.action() == McpSchema.ElicitResult.Action.ACCEPT && answer.content() != null;
  }

  private static String action(McpSchema.ElicitResult answer) {
    return answer.action() == null ? "null" : answer.action().name().toLowerCase(java.util.Locale.ROOT);
  }

  private static String sampledText(McpSchema.CreateMessageResult sampled) {
    return sampled.content() instanceof McpSchema.TextContent t ? t.text() : String.valueOf(sampled.content());
  }

  private static List<String> rootUris(McpSchema.ListRootsResult roots) {
    return roots.roots() == null ? List.of() : roots.roots().stream().map(McpSchema.Root::uri).toList();
  }

  private String json(Object value) {
    try {
      return json.writeValueAsString(value);
    } catch (java.io.IOException e) {
      return String.valueOf(value);
    }
  }

  /**
   * The asynchronous exchange behind a synchronous one: the SDK keeps it private, and only its
   * non-blocking methods let one handler put several requests on the wire before awaiting any.
   */
  private static McpAsyncServerExchange asyncOf(McpSyncServerExchange exchange) {
    return (McpAsyncServerExchange) field(McpSyncServerExchange.class, "exchange", exchange);
  }

  /** The session of an exchange, to send a request without the SDK's check of the client's capabilities. */
  private static McpSession sessionOf(McpSyncServerExchange exchange) {
    return (McpSession) field(McpAsyncServerExchange.class, "session", asyncOf(exchange));
  }

  private static Object field(Class<?> owner, String name, Object target) {
    try {
      Field f = owner.getDeclaredField(name);
      f.setAccessible(true);
      return f.get(target);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("the Java SDK's " + owner.getSimpleName() + "." + name + " is gone: " + e, e);
    }
  }
}
