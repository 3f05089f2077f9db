package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.McpVersions;
import dev.mcpstdio.protocol.MetaKeys;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the relay knows in the 2026 era: there is no session on the wire, so this is all local.
 * What the server said in {@code server/discover} (its capabilities, versions and identity, for
 * the {@code initialize} answer a 2025-era host gets), the version chosen, and what the host said
 * about itself in its {@code initialize} (its capabilities and identity, sent in every request's
 * {@code _meta}) and since ({@code logging/setLevel}).
 *
 * <p>Each value is JSON text, replaced whole (never edited), so readers need no lock.
 */
final class Era2026Session {

  static final String RELAY_INFO =
      "{\"name\":\"mcp-stdio\",\"version\":" + Json.quote(dev.mcpstdio.Version.get()) + "}";

  private volatile String version = McpVersions.ERA_2026;
  private volatile String hostCapabilities = "{}";
  private volatile String hostInfo; // null until the host names itself
  private volatile String logLevel; // JSON string, null until logging/setLevel
  private volatile String serverCapabilities; // null until discovered
  private volatile String serverInfo;
  private volatile String instructions; // JSON string or null
  private volatile List<String> supportedVersions = List.of();
  private volatile boolean hostSpeaks2026;
  private volatile boolean hostInitialized; // a 2026-era host: its messages are relayed as they are

  /** The protocol version every request carries. */
  String version() {
    return version;
  }

  void version(String chosen) {
    this.version = chosen;
  }

  /**
   * Takes in a {@code server/discover} result: capabilities, versions and identity. A result
   * without capabilities keeps what an earlier one said (a re-seed never erases).
   */
  void discovered(Response answer) {
    byte[] bytes = answer.bytes();
    Map<String, JsonSpan> result = answer.result() == null ? null : Json.fields(bytes, answer.result());
    if (result == null) {
      return;
    }
    JsonSpan caps = result.get("capabilities");
    if (caps != null && Json.fields(bytes, caps) != null) {
      serverCapabilities = caps.text(bytes);
    }
    JsonSpan versions = result.get("supportedVersions");
    if (versions != null && Json.elements(bytes, versions) != null) {
      supportedVersions = Json.elements(bytes, versions).stream().map(v -> Json.string(bytes, v))
          .filter(v -> v != null).toList();
    }
    JsonSpan text = result.get("instructions");
    if (text != null && Json.string(bytes, text) != null) {
      instructions = text.text(bytes);
    }
    JsonSpan meta = result.get("_meta");
    Map<String, JsonSpan> metaFields = meta == null ? null : Json.fields(bytes, meta);
    JsonSpan info = metaFields == null ? null : metaFields.get(MetaKeys.SERVER_INFO);
    if (info != null && Json.fields(bytes, info) != null) {
      serverInfo = info.text(bytes);
    }
  }

  /** The versions the server named (in discover, or in a -32022's {@code data.supported}). */
  List<String> supportedVersions() {
    return supportedVersions;
  }

  void supportedVersions(List<String> versions) {
    this.supportedVersions = List.copyOf(versions);
  }

  /** The server's capabilities as discovered, or null. */
  String serverCapabilities() {
    return serverCapabilities;
  }

  String serverInfo() {
    return serverInfo;
  }

  String instructions() {
    return instructions;
  }

  /** Takes in the host's {@code initialize}: its capabilities and identity go into every request from now on. */
  void hostInitialized(Request initialize) {
    hostInitialized = true;
    byte[] bytes = initialize.bytes();
    Map<String, JsonSpan> params = initialize.params() == null ? null : Json.fields(bytes, initialize.params());
    if (params == null) {
      return;
    }
    JsonSpan caps = params.get("capabilities");
    if (caps != null && Json.fields(bytes, caps) != null) {
      hostCapabilities = caps.text(bytes);
    }
    JsonSpan info = params.get("clientInfo");
    if (info != null && Json.fields(bytes, info) != null) {
      hostInfo = info.text(bytes);
    }
  }

  /** Whether the host sent {@code initialize} already. */
  boolean hostInitialized() {
    return hostInitialized;
  }

  String hostCapabilities() {
    return hostCapabilities;
  }

  /** Whether the host declared {@code capability} (a top-level member of its capabilities). */
  boolean hostDeclared(String capability) {
    byte[] bytes = hostCapabilities.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    Map<String, JsonSpan> caps = Json.fields(bytes, new JsonSpan(0, bytes.length));
    return caps != null && caps.containsKey(capability);
  }

  void logLevel(String levelJson) {
    this.logLevel = levelJson;
  }

  boolean hostSpeaks2026() {
    return hostSpeaks2026;
  }

  void hostSpeaks2026(boolean yes) {
    this.hostSpeaks2026 = yes;
  }

  /** The {@code _meta} entries every request of a 2025-era host carries upstream, in order. */
  Map<String, String> requestMeta() {
    Map<String, String> meta = new LinkedHashMap<>();
    meta.put(MetaKeys.PROTOCOL_VERSION, Json.quote(version));
    meta.put(MetaKeys.CLIENT_CAPABILITIES, hostCapabilities);
    // The host's identity once it named itself; until then (the era probe, a host that sends none)
    // the relay's own: it is the client that makes the request.
    meta.put(MetaKeys.CLIENT_INFO, hostInfo != null ? hostInfo : RELAY_INFO);
    if (logLevel != null) {
      meta.put(MetaKeys.LOG_LEVEL, logLevel);
    }
    return meta;
  }
}
