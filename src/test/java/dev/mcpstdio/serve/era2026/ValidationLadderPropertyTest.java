package dev.mcpstdio.serve.era2026;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.protocol.McpName;
import dev.mcpstdio.serve.era2026.ValidationLadder.Pass;
import dev.mcpstdio.serve.era2026.ValidationLadder.Rejection;
import dev.mcpstdio.serve.era2026.ValidationLadder.Verdict;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * For any tool name: its encoded {@code Mcp-Name} passes, and any other string's header is a
 * -32020 whose message holds nothing of either; the ladder never throws on any header value.
 */
class ValidationLadderPropertyTest {

  @Provide
  Arbitrary<String> names() {
    return Arbitraries.oneOf(
        Arbitraries.strings().ofMaxLength(30),
        Arbitraries.strings().withChars("=?base64 AZaz09+/\t").ofMaxLength(30),
        Arbitraries.strings().all().ofMaxLength(10).map(s -> "=?base64?" + s + "?="))
        // a lone surrogate has no UTF-8 form (McpName documents what then happens)
        .filter(s -> new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).equals(s));
  }

  private static Request callRaw(String name) {
    String json = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":" + Json.quote(name)
        + ",\"_meta\":" + Msgs.json(Msgs.META) + "}}";
    return (Request) Msgs.parseRaw(json);
  }

  @Property(tries = 1000)
  void theEncodedNamePassesAndOthersFail(@ForAll("names") String name, @ForAll("names") String other) {
    Request r = callRaw(name);
    HeaderLines ok = Msgs.headers("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", McpName.encodeName(name));
    assertThat(ValidationLadder.check(r, ok)).isInstanceOf(Pass.class);
    Verdict v = ValidationLadder.check(r,
        Msgs.headers("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", McpName.encodeName(other)));
    if (other.equals(name)) {
      assertThat(v).isInstanceOf(Pass.class);
    } else {
      assertThat(v).isInstanceOf(Rejection.class);
      assertThat(((Rejection) v).code()).isEqualTo(-32020);
    }
  }

  @Property(tries = 500)
  void neverThrowsOnAnyHeaderValue(@ForAll String version, @ForAll String method, @ForAll String name) {
    Request r = callRaw("t");
    Verdict v = ValidationLadder.check(r, Msgs.headers("MCP-Protocol-Version", version, "Mcp-Method", method, "Mcp-Name", name));
    if (v instanceof Rejection rej && !version.isBlank() && version.strip().length() > 3) {
      assertThat(rej.message()).doesNotContain(version.strip());
    }
  }
}
