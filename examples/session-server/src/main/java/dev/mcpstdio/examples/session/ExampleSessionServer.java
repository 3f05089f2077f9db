package dev.mcpstdio.examples.session;

import dev.mcpstdio.session.CallbackTimeoutException;
import dev.mcpstdio.session.SessionContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.FilterInputStream;
import java.io.InputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * A session-scoped stdio MCP server built on the official Java MCP SDK and the mcp-stdio session
 * kit, for {@code mcp-stdio serve} to host one per session (see this folder's README).
 *
 * <p>Two tools show the two kinds of decision a tool needs from a person:
 *
 * <ul>
 *   <li>{@code submit_plan} writes a plan into the session's plans folder and asks for approval
 *       ({@code plan_ready}); the tool's result says what the person decided.
 *   <li>{@code crm_lookup} needs a credential for the source {@code crm}. Without one it asks the
 *       host for a sign-in ({@code auth_required}) and waits for the host to hand the credential off
 *       into the session's workspace, then uses it. The server never sees how the sign-in happens and
 *       never refreshes a credential: an expired one is asked for again.
 * </ul>
 *
 * <p>Stdout is the JSON-RPC wire and nothing else: the SDK's transport gets the real stdout, and
 * {@link System#out} is pointed at stderr, so a stray {@code println} cannot corrupt it.
 */
public final class ExampleSessionServer {

  static final String NAME = "mcp-stdio-example-session-server";

  /**
   * How long a tool waits for a decision (the host's --callback-timeout, 120 s by default, normally
   * ends it first), and then for a credential after the user accepted to sign in.
   */
  private static final Duration DECISION_WAIT = Duration.ofMinutes(2);

  private final SessionContext session;
  private final McpJsonMapper json;
  private final String crmSignInUrl;
  private final AtomicInteger plans = new AtomicInteger();

  ExampleSessionServer(SessionContext session, McpJsonMapper json, String crmSignInUrl) {
    this.session = session;
    this.json = json;
    this.crmSignInUrl = crmSignInUrl;
  }

  public static void main(String[] args) throws InterruptedException {
    OutputStream wire = new FileOutputStream(FileDescriptor.out);
    System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
    SessionContext session = SessionContext.fromArgs(args); // usage on stderr and exit 1 when a piece is missing
    String signInUrl = option(args, "--crm-sign-in-url", "https://crm.example.com/oauth/authorize");

    McpJsonMapper json = McpJsonDefaults.getMapper();
    ExampleSessionServer tools = new ExampleSessionServer(session, json, signInUrl);
    CountDownLatch eof = new CountDownLatch(1);
    InputStream stdin = new FilterInputStream(new FileInputStream(FileDescriptor.in)) {
      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        int n;
        try {
          n = super.read(buffer, offset, length);
        } catch (IOException e) {
          eof.countDown();
          throw e;
        }
        if (n < 0) {
          eof.countDown(); // the host closed our stdin: the session is over
        }
        return n;
      }
    };
    McpSyncServer server = McpServer.sync(new StdioServerTransportProvider(json, stdin, wire))
        .serverInfo(NAME, "1.0.0")
        .jsonMapper(json)
        .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
        .tools(tools.specifications())
        .build();
    eof.await();
    server.closeGracefully(); // answers still on their way drain first
    System.exit(0);
  }

  List<McpServerFeatures.SyncToolSpecification> specifications() {
    return List.of(
        tool("submit_plan", "Writes a plan and asks the user to approve it before anything is done",
            "{\"type\":\"object\",\"properties\":{\"title\":{\"type\":\"string\"},\"steps\":{\"type\":\"array\","
                + "\"items\":{\"type\":\"string\"}}},\"required\":[\"title\",\"steps\"]}",
            this::submitPlan),
        tool("crm_lookup", "Looks a customer up in the CRM (asks the user to sign in when needed)",
            "{\"type\":\"object\",\"properties\":{\"customer\":{\"type\":\"string\"}},\"required\":[\"customer\"]}",
            this::crmLookup));
  }

  McpSchema.CallToolResult submitPlan(McpSyncServerExchange exchange, McpSchema.CallToolRequest request) {
    String title = String.valueOf(arguments(request).getOrDefault("title", "plan"));
    Object steps = arguments(request).getOrDefault("steps", List.of());
    StringBuilder text = new StringBuilder("# ").append(title).append("\n\n");
    if (steps instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        text.append(i + 1).append(". ").append(list.get(i)).append('\n');
      }
    }
    try {
      Path plan = session.plansFolder().resolve("plan-" + plans.incrementAndGet() + ".md");
      Files.writeString(plan, text);
      String reply = session.callbacks().request("plan_ready",
          Map.of("planPath", plan.toString(), "message", "Approve the plan \"" + title + "\"?"), DECISION_WAIT);
      return switch (action(reply)) {
        case "accept" -> result("Plan approved: " + plan + ". Go ahead with it.");
        case "decline" -> result("The user declined the plan " + plan + ". Ask what to change.");
        default -> result("The user dismissed the plan " + plan + " without deciding.");
      };
    } catch (CallbackTimeoutException e) {
      return error("No decision on the plan in time: " + e.getMessage());
    } catch (IOException e) {
      return error("Could not ask for approval: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return error("Interrupted while waiting for approval");
    }
  }

  McpSchema.CallToolResult crmLookup(McpSyncServerExchange exchange, McpSchema.CallToolRequest request) {
    String customer = String.valueOf(arguments(request).getOrDefault("customer", ""));
    try {
      Optional<String> credential = session.credentials("crm");
      if (credential.isEmpty()) {
        String reply = session.callbacks().request("auth_required", Map.of("sourceSlug", "crm", "authUrl", crmSignInUrl,
            "message", "Sign in to the CRM to look up " + customer), DECISION_WAIT);
        if (!action(reply).equals("accept")) {
          return error("The user did not sign in to the CRM.");
        }
        System.err.println("waiting for the host to hand off the crm credential"); // stderr: the host's log
        credential = session.awaitCredentials("crm", DECISION_WAIT); // accepting only means the sign-in began
      }
      if (credential.isEmpty()) {
        return error("The CRM sign-in did not finish in time.");
      }
      // A real server would call the CRM with the credential here; it never echoes the secret.
      return result("Customer " + customer + ": active since 2021, 3 open tickets (signed in to the CRM with a "
          + credential.get().length() + "-character token).");
    } catch (CallbackTimeoutException e) {
      return error("No sign-in to the CRM in time: " + e.getMessage());
    } catch (IOException e) {
      return error("Could not ask for a sign-in: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return error("Interrupted while waiting for the sign-in");
    }
  }

  /** The elicitation result's action: accept, decline or cancel. */
  private String action(String reply) throws IOException {
    Map<?, ?> result = json.readValue(reply, Map.class);
    return String.valueOf(result.get("action"));
  }

  private McpServerFeatures.SyncToolSpecification tool(String name, String description, String inputSchema,
      BiFunction<McpSyncServerExchange, McpSchema.CallToolRequest, McpSchema.CallToolResult> handler) {
    McpSchema.Tool tool = McpSchema.Tool.builder().name(name).description(description).inputSchema(json, inputSchema).build();
    return McpServerFeatures.SyncToolSpecification.builder().tool(tool).callHandler(handler).build();
  }

  private static Map<String, Object> arguments(McpSchema.CallToolRequest request) {
    return request.arguments() == null ? Map.of() : request.arguments();
  }

  private static McpSchema.CallToolResult result(String text) {
    return McpSchema.CallToolResult.builder().addTextContent(text).isError(false).build();
  }

  private static McpSchema.CallToolResult error(String text) {
    return McpSchema.CallToolResult.builder().addTextContent(text).isError(true).build();
  }

  private static String option(String[] args, String name, String fallback) {
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals(name) && i + 1 < args.length) {
        return args[i + 1];
      }
      if (args[i].startsWith(name + "=")) {
        return args[i].substring(name.length() + 1);
      }
    }
    return fallback;
  }
}
