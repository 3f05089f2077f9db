package dev.mcpstdio.protocol;

import static dev.mcpstdio.protocol.EraProbeVerdict.Kind.AUTH;
import static dev.mcpstdio.protocol.EraProbeVerdict.Kind.ERA_2025;
import static dev.mcpstdio.protocol.EraProbeVerdict.Kind.ERA_2026_ERROR;
import static dev.mcpstdio.protocol.EraProbeVerdict.Kind.ERA_2026_RESULT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.protocol.EraProbeVerdict.Kind;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every row of the probe table in mcp-stdio.md 2.11, and the edges of each. */
class EraProbeVerdictTest {

  private static final String DISCOVER =
      "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"resultType\":\"complete\",\"supportedVersions\":[\"2026-07-28\"],"
          + "\"capabilities\":{\"tools\":{}},\"ttlMs\":0,\"cacheScope\":\"private\"}}";

  private static String error(String code) {
    return "{\"jsonrpc\":\"2.0\",\"id\":0,\"error\":{\"code\":" + code + ",\"message\":\"m\"}}";
  }

  static Stream<Arguments> table() {
    return Stream.of(
        // 200 + a result that is an object: 2026, seed the state
        Arguments.of(200, DISCOVER, ERA_2026_RESULT),
        // an empty result is what some 2025-era servers answer to any method they do not know
        Arguments.of(200, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}", ERA_2025),
        Arguments.of(200, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"capabilities\":{}}}", ERA_2025),
        Arguments.of(200, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"supportedVersions\":\"2026-07-28\"}}", ERA_2025),
        Arguments.of(200, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"supportedVersions\":[]}}", ERA_2026_RESULT),
        Arguments.of(200, "  " + DISCOVER + "\n", ERA_2026_RESULT),
        // 200 or 400 + an error in -32099..-32020: 2026, on the whole range
        Arguments.of(200, error("-32020"), ERA_2026_ERROR),
        Arguments.of(200, error("-32021"), ERA_2026_ERROR),
        Arguments.of(200, error("-32022"), ERA_2026_ERROR),
        Arguments.of(400, error("-32022"), ERA_2026_ERROR),
        Arguments.of(400, error("-32020"), ERA_2026_ERROR),
        Arguments.of(400, error("-32021"), ERA_2026_ERROR),
        Arguments.of(400, error("-32050"), ERA_2026_ERROR),
        Arguments.of(400, error("-32099"), ERA_2026_ERROR),
        Arguments.of(200, error("-32099"), ERA_2026_ERROR),
        // just outside the range
        Arguments.of(400, error("-32019"), ERA_2025),
        Arguments.of(400, error("-32100"), ERA_2025),
        // 200 + a generic error, an empty body, {}, a null or scalar result: 2025
        Arguments.of(200, error("-32601"), ERA_2025),
        Arguments.of(200, error("-32602"), ERA_2025),
        Arguments.of(200, error("-32600"), ERA_2025),
        Arguments.of(200, error("-32000"), ERA_2025),
        Arguments.of(200, error("-32002"), ERA_2025),
        Arguments.of(200, null, ERA_2025),
        Arguments.of(200, "", ERA_2025),
        Arguments.of(200, "{}", ERA_2025),
        Arguments.of(200, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":null}", ERA_2025),
        Arguments.of(200, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":\"ok\"}", ERA_2025),
        Arguments.of(200, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":42}", ERA_2025),
        Arguments.of(200, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":[]}", ERA_2025),
        // not one well-formed object
        Arguments.of(200, "[" + DISCOVER + "]", ERA_2025),
        Arguments.of(200, "not json", ERA_2025),
        Arguments.of(200, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}", ERA_2025),
        Arguments.of(200, DISCOVER + "x", ERA_2025),
        Arguments.of(200, "\"-32022\"", ERA_2025),
        // error codes that are no integer, or none
        Arguments.of(400, error("-32022.0"), ERA_2025),
        Arguments.of(400, error("\"-32022\""), ERA_2025),
        Arguments.of(400, error("-99999999999"), ERA_2025),
        Arguments.of(400, "{\"jsonrpc\":\"2.0\",\"id\":0,\"error\":{\"message\":\"m\"}}", ERA_2025),
        Arguments.of(400, "{\"jsonrpc\":\"2.0\",\"id\":0,\"error\":-32022}", ERA_2025),
        // a result and an error at once is no evidence of anything
        Arguments.of(200, "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{},\"error\":{\"code\":-32022}}", ERA_2025),
        // 400 + an empty or generic body: 2025
        Arguments.of(400, null, ERA_2025),
        Arguments.of(400, "", ERA_2025),
        Arguments.of(400, "Bad Request", ERA_2025),
        Arguments.of(400, "{}", ERA_2025),
        Arguments.of(400, error("-32602"), ERA_2025),
        Arguments.of(400, error("-32600"), ERA_2025),
        Arguments.of(400, error("-32000"), ERA_2025),
        Arguments.of(400, DISCOVER, ERA_2025), // a result belongs with 200
        // 401/403: authorization evidence, for the caller's recovery
        Arguments.of(401, null, AUTH),
        Arguments.of(403, "{\"error\":\"insufficient_scope\"}", AUTH),
        Arguments.of(401, error("-32022"), AUTH),
        // 404, 5xx, other statuses: 2025, whatever the body
        Arguments.of(404, null, ERA_2025),
        Arguments.of(404, error("-32601"), ERA_2025),
        Arguments.of(404, error("-32022"), ERA_2025),
        Arguments.of(405, null, ERA_2025),
        Arguments.of(500, error("-32022"), ERA_2025),
        Arguments.of(502, null, ERA_2025),
        Arguments.of(503, DISCOVER, ERA_2025),
        Arguments.of(202, null, ERA_2025),
        Arguments.of(201, DISCOVER, ERA_2025),
        Arguments.of(302, null, ERA_2025));
  }

  @ParameterizedTest(name = "HTTP {0} {1} -> {2}")
  @MethodSource("table")
  void classifiesEveryRowOfTheTable(int status, String body, Kind expected) {
    byte[] bytes = body == null ? null : body.getBytes(StandardCharsets.UTF_8);
    EraProbeVerdict verdict = EraProbeVerdict.classify(status, bytes);
    assertThat(verdict.kind()).isEqualTo(expected);
    assertThat(verdict.reason()).startsWith("HTTP " + status);
    assertThat(verdict.isEra2026()).isEqualTo(expected == ERA_2026_RESULT || expected == ERA_2026_ERROR);
  }

  @Test
  void aTransportFailureIs2025() {
    EraProbeVerdict verdict = EraProbeVerdict.transportFailure("connection refused");
    assertThat(verdict.kind()).isEqualTo(ERA_2025);
    assertThat(verdict.isEra2026()).isFalse();
    assertThat(verdict.reason()).isEqualTo("no answer (connection refused)");
  }

  @Test
  void reasonsNameTheStatusAndTheCodeButNotTheServersMessage() {
    byte[] body = "{\"jsonrpc\":\"2.0\",\"id\":0,\"error\":{\"code\":-32022,\"message\":\"secret-ish text\"}}"
        .getBytes(StandardCharsets.UTF_8);
    assertThat(EraProbeVerdict.classify(400, body).reason())
        .isEqualTo("HTTP 400, error -32022 (MCP-reserved)")
        .doesNotContain("secret");
    assertThat(EraProbeVerdict.classify(200, error("-32601").getBytes(StandardCharsets.UTF_8)).reason())
        .isEqualTo("HTTP 200, error -32601 (not MCP-reserved)");
  }
}
