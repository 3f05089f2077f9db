package dev.mcpstdio.serve.era2026;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.JsonSpan;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * For any result object a child may send (members in any order, odd spacing, escapes, nesting,
 * the stamped names already present or not): the stamped answer is one well-formed response under
 * the client's id, every member the child wrote is still there with its exact bytes, and each
 * stamped member is present exactly once.
 */
class ResultStampPropertyTest {

  private static final ResultStamp STAMP = new ResultStamp("{\"name\":\"s\"}", 5);

  @Provide
  Arbitrary<String> values() {
    Arbitrary<String> scalar = Arbitraries.oneOf(
        Arbitraries.strings().ofMaxLength(8).map(Json::quote),
        Arbitraries.of("0", "-1.5e3", "true", "false", "null", "\"\\u00e9\\n\"", "\"\\\"}\""));
    return Arbitraries.recursive(() -> scalar, inner -> Arbitraries.oneOf(
        inner.list().ofMaxSize(3).map(l -> "[" + String.join(" , ", l) + "]"),
        members(inner)), 3);
  }

  private static Arbitrary<String> members(Arbitrary<String> inner) {
    Arbitrary<String> name = Arbitraries.oneOf(Arbitraries.of("resultType", "ttlMs", "cacheScope", "_meta", "content", "x"),
        Arbitraries.strings().alpha().ofMaxLength(4));
    Arbitrary<String> member = net.jqwik.api.Combinators.combine(name, inner, Arbitraries.of("", " ", "\n"))
        .as((n, v, ws) -> ws + Json.quote(n) + ws + ":" + ws + v + ws);
    return member.list().ofMaxSize(5).map(l -> "{" + String.join(",", l) + "}");
  }

  @Property(tries = 1000)
  void stampingKeepsEveryByteAndAddsEachMemberOnce(@ForAll("values") String result, @ForAll boolean cacheable) {
    if (!result.startsWith("{")) {
      result = "{\"v\":" + result + "}";
    }
    byte[] child = ("{\"jsonrpc\":\"2.0\",\"id\":\"mcp-stdio/serve/1\",\"result\":" + result + "}").getBytes(StandardCharsets.UTF_8);
    Response in = (Response) Msgs.parseRaw(new String(child, StandardCharsets.UTF_8));
    String method = cacheable ? "tools/list" : "tools/call";
    byte[] out = STAMP.apply(in, JsonRpcId.ofNumber("9"), method, null).bytes();
    JsonRpcMessage parsed = Splice.parse(out);
    assertThat(parsed).isInstanceOf(Response.class);
    Response r = (Response) parsed;
    assertThat(r.id()).isEqualTo(JsonRpcId.ofNumber("9"));
    String outResult = r.result().text(out);
    int from = 0;
    for (Json.Member m : Json.members(in.bytes(), in.result())) {
      String raw = new String(in.bytes(), m.start(), m.value().end() - m.start(), StandardCharsets.UTF_8);
      if (m.name().equals("_meta")) {
        raw = new String(in.bytes(), m.start(), m.value().start() - m.start(), StandardCharsets.UTF_8); // its head; the value may grow
      }
      int at = outResult.indexOf(raw, from);
      assertThat(at).as(raw).isGreaterThanOrEqualTo(0);
      from = at + raw.length();
    }
    List<Json.Member> members = Json.members(out, r.result());
    Map<String, JsonSpan> fields = Json.fields(out, r.result());
    assertThat(fields).containsKey("resultType");
    assertThat(fields.containsKey("ttlMs")).isEqualTo(cacheable || Json.fields(in.bytes(), in.result()).containsKey("ttlMs"));
    for (String stamped : List.of("resultType", "ttlMs", "cacheScope", "_meta")) {
      long before = Json.members(in.bytes(), in.result()).stream().filter(m -> m.name().equals(stamped)).count();
      long after = members.stream().filter(m -> m.name().equals(stamped)).count();
      assertThat(after).as(stamped).isEqualTo(Math.max(before, stamped.equals("ttlMs") || stamped.equals("cacheScope") ? (cacheable ? 1 : 0) : 1));
    }
  }
}
