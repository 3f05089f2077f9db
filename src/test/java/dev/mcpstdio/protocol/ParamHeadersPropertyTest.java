package dev.mcpstdio.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.ParamHeaders.Annotation;
import dev.mcpstdio.protocol.ParamHeaders.Invalid;
import dev.mcpstdio.protocol.ParamHeaders.Scan;
import dev.mcpstdio.protocol.ParamHeaders.Type;
import dev.mcpstdio.protocol.ParamHeaders.Valid;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Schemas with annotated properties under random property names, and calls with random argument
 * values: the scan finds exactly the annotations put there, moving one under an off-chain keyword
 * invalidates the tool, and every rendered header is a valid header value that stands for its
 * argument.
 */
class ParamHeadersPropertyTest {

  private static final List<String> OFF_CHAIN =
      List.of("items", "anyOf", "oneOf", "allOf", "not", "if", "then", "else", "additionalProperties", "contains");

  @Provide
  Arbitrary<String> propertyNames() {
    return Arbitraries.strings().ofMinLength(1).ofMaxLength(12).withCharRange(' ', '~').withChars('é', '\n', '世');
  }

  @Provide
  Arbitrary<String> values() {
    return Arbitraries.strings().ofMaxLength(30).withCharRange(' ', '~').withChars('\t', '\r', '\n', 'é', '世', '\u0000');
  }

  @Property(tries = 300)
  void scanFindsTheAnnotationsPutOnTheChainAndRenderMirrorsTheArguments(
      @ForAll("propertyNames") String outer,
      @ForAll("propertyNames") String inner,
      @ForAll("values") String text,
      @ForAll @LongRange(min = -ParamHeaders.MAX_SAFE_INTEGER, max = ParamHeaders.MAX_SAFE_INTEGER) long number,
      @ForAll boolean flag,
      @ForAll boolean numberAsFloat) {
    String schema =
        "{\"type\":\"object\",\"properties\":{"
            + Json.quote(outer) + ":{\"type\":\"object\",\"properties\":{"
            + Json.quote(inner) + ":{\"type\":\"string\",\"x-mcp-header\":\"Text\"}}},"
            + "\"n\":{\"type\":\"integer\",\"x-mcp-header\":\"Num\"},"
            + "\"b\":{\"type\":\"boolean\",\"x-mcp-header\":\"Flag\"}}}";
    Scan scan = scan(schema);
    assertThat(scan).isInstanceOf(Valid.class);
    List<Annotation> annotations = ((Valid) scan).annotations();
    List<Annotation> expected = new ArrayList<>();
    if (!outer.equals("n") && !outer.equals("b")) {
      expected.add(new Annotation("Text", List.of(outer, inner), Type.STRING));
    }
    expected.add(new Annotation("Num", List.of("n"), Type.INTEGER));
    expected.add(new Annotation("Flag", List.of("b"), Type.BOOLEAN));
    assertThat(annotations).containsExactlyInAnyOrderElementsOf(expected);

    String arguments =
        "{" + Json.quote(outer) + ":{" + Json.quote(inner) + ":" + Json.quote(text) + "},\"n\":"
            + (numberAsFloat ? number + ".0" : Long.toString(number)) + ",\"b\":" + flag + "}";
    byte[] bytes = arguments.getBytes(StandardCharsets.UTF_8);
    Map<String, String> headers = ParamHeaders.render(bytes, new JsonSpan(0, bytes.length), annotations);
    for (String value : headers.values()) {
      assertThat(value.chars()).allMatch(c -> c >= 0x20 && c <= 0x7E);
      assertThat(value).doesNotStartWith(" ").doesNotEndWith(" ").isNotEmpty();
    }
    if (!outer.equals("n") && !outer.equals("b")) {
      assertThat(McpName.decode(headers.get("Mcp-Param-Text"))).contains(text);
    }
    assertThat(headers.get("Mcp-Param-Num")).isEqualTo(Long.toString(number));
    assertThat(headers.get("Mcp-Param-Flag")).isEqualTo(Boolean.toString(flag));
  }

  @Property(tries = 200)
  void anAnnotationUnderAnyOffChainKeywordInvalidatesTheTool(
      @ForAll("propertyNames") String name, @ForAll @IntRange(min = 0, max = 9) int keyword, @ForAll @IntRange(min = 0, max = 3) int depth) {
    String annotated = "{\"type\":\"string\",\"x-mcp-header\":\"H\"}";
    String hidden = "{\"" + OFF_CHAIN.get(keyword) + "\":" + annotated + "}";
    String schema = hidden;
    for (int i = 0; i < depth; i++) {
      schema = "{\"type\":\"object\",\"properties\":{" + Json.quote(name) + ":" + schema + "}}";
    }
    assertThat(scan(schema)).isInstanceOf(Invalid.class);
  }

  private static Scan scan(String schema) {
    byte[] bytes = schema.getBytes(StandardCharsets.UTF_8);
    return ParamHeaders.scan(bytes, new JsonSpan(0, bytes.length));
  }
}
