package dev.mcpstdio.session;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;

/**
 * What a session-scoped stdio server knows about its session: the config its host put on argv
 * ({@code --session-id}, {@code --workspace-root}, {@code --plans-folder}; not secret) and, from
 * its environment, the way back to the host for callbacks (secret, never on argv).
 *
 * <p>Typical use in {@code main}: {@code SessionContext session = SessionContext.fromArgs(args);}
 */
public final class SessionContext {

  static final String USAGE = "usage: <server> --session-id ID --workspace-root DIR --plans-folder DIR";

  private final String sessionId;
  private final Path workspaceRoot;
  private final Path plansFolder;
  private final Callbacks callbacks;

  private SessionContext(String sessionId, Path workspaceRoot, Path plansFolder, Callbacks callbacks) {
    this.sessionId = sessionId;
    this.workspaceRoot = workspaceRoot;
    this.plansFolder = plansFolder;
    this.callbacks = callbacks;
  }

  /**
   * The session from the process's arguments and environment; on a missing argument, the usage on
   * stderr and exit 1 (a host that starts a server wrongly should hear so at once).
   */
  public static SessionContext fromArgs(String[] args) {
    try {
      return parse(args, System.getenv(), System.err);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(USAGE);
      System.exit(1);
      throw e; // not reached
    }
  }

  /** The same, for tests and embedding: throws instead of exiting. */
  public static SessionContext parse(String[] args, Map<String, String> env, PrintStream stderr) {
    String sessionId = null;
    String workspace = null;
    String plans = null;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
      boolean inline = arg.contains("=");
      if (!name.equals("--session-id") && !name.equals("--workspace-root") && !name.equals("--plans-folder")) {
        continue; // the server's own arguments are its business
      }
      String value = inline ? arg.substring(arg.indexOf('=') + 1) : (i + 1 < args.length ? args[++i] : null);
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException(name + " needs a value");
      }
      switch (name) {
        case "--session-id" -> sessionId = value;
        case "--workspace-root" -> workspace = value;
        default -> plans = value;
      }
    }
    if (sessionId == null || workspace == null || plans == null) {
      throw new IllegalArgumentException("missing " + (sessionId == null ? "--session-id" : workspace == null
          ? "--workspace-root" : "--plans-folder"));
    }
    Callbacks callbacks = new Callbacks(sessionId, stderr, env.get("MCP_STDIO_CALLBACK_URL"), env.get("MCP_STDIO_CALLBACK_TOKEN"));
    return new SessionContext(sessionId, Path.of(workspace), Path.of(plans), callbacks);
  }

  public String sessionId() {
    return sessionId;
  }

  public Path workspaceRoot() {
    return workspaceRoot;
  }

  public Path plansFolder() {
    return plansFolder;
  }

  public Callbacks callbacks() {
    return callbacks;
  }

  /**
   * The credential the host left for source {@code slug}, unless it has expired (a server cannot
   * refresh one: it asks for authentication again). Never follows a link.
   */
  public Optional<String> credentials(String slug) throws IOException {
    Path file = workspaceRoot.resolve("sources").resolve(slug).resolve(dev.mcpstdio.host.CredentialHandoff.FILE);
    if (!dev.mcpstdio.host.CredentialHandoff.isSlug(slug)) { // the host writes nothing else: nothing else is read
      return Optional.empty();
    }
    byte[] b;
    try (java.nio.channels.SeekableByteChannel in = Files.newByteChannel(file, java.nio.file.StandardOpenOption.READ,
        LinkOption.NOFOLLOW_LINKS)) { // a link planted here is not read
      if (in.size() > MAX_CREDENTIAL_BYTES) {
        return Optional.empty();
      }
      java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate((int) in.size());
      while (buffer.hasRemaining() && in.read(buffer) > 0) {
        // read it whole
      }
      b = java.util.Arrays.copyOf(buffer.array(), buffer.position());
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
        return Optional.empty(); // a link (refused by NOFOLLOW_LINKS) or a folder: no credential
      }
      throw e;
    }
    if (!Json.isOneObject(b)) {
      return Optional.empty();
    }
    JsonSpan all = new JsonSpan(0, b.length);
    String expires = Json.string(b, Json.field(b, all, "expiresAt"));
    if (expires != null) {
      try {
        if (!Instant.parse(expires).isAfter(Instant.now())) {
          return Optional.empty();
        }
      } catch (DateTimeParseException e) {
        return Optional.empty();
      }
    }
    return Optional.ofNullable(Json.string(b, Json.field(b, all, "value")));
  }

  /** A credential file larger than this is not one (1 MiB). */
  static final long MAX_CREDENTIAL_BYTES = 1 << 20;

  /** How often {@link #awaitCredentials} looks for the file. */
  static final Duration CREDENTIAL_POLL = Duration.ofMillis(100);

  /**
   * The credential for {@code slug}, waiting up to {@code timeout} for the host to hand it off: for
   * a sign-in the user accepted to do (a URL-mode elicitation's accept only means the user went to
   * the page) that the host finishes later. Looks every {@link #CREDENTIAL_POLL}.
   */
  public Optional<String> awaitCredentials(String slug, Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Optional<String> credential = credentials(slug);
      long left = deadline - System.nanoTime();
      if (credential.isPresent() || left <= 0) {
        return credential;
      }
      Thread.sleep(Math.min(CREDENTIAL_POLL.toMillis(), Math.max(1, left / 1_000_000)));
    }
  }
}
