package dev.mcpstdio.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.ParamHeaders.Annotation;
import dev.mcpstdio.protocol.ParamHeaders.Type;
import dev.mcpstdio.protocol.ParamHeaders.Valid;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Mcp-Param-* rendering (spec.md 5.8 "Value conversion"; mcp-stdio.md 2.11; conformance http-custom-headers). */
class ParamHeadersRenderTest {

  private static Map<String, String> render(String arguments, List<Annotation> annotations) {
    byte[] bytes = arguments.getBytes(StandardCharsets.UTF_8);
    return ParamHeaders.render(bytes, new JsonSpan(0, bytes.length), annotations);
  }

  private static String one(String json) {
    return render("{\"v\":" + json + "}", List.of(new Annotation("V", List.of("v"), Type.STRING))).get("Mcp-Param-V");
  }

  @Test
  void theConformanceToolCall() {
    String schema =
        "{'type':'object','properties':{"
            + "'region':{'type':'string','x-mcp-header':'Region'},"
            + "'priority':{'type':'integer','x-mcp-header':'Priority'},"
            + "'verbose':{'type':'boolean','x-mcp-header':'Verbose'},"
            + "'debug':{'type':'boolean','x-mcp-header':'Debug'},"
            + "'empty_val':{'type':'string','x-mcp-header':'EmptyVal'},"
            + "'method_val':{'type':'string','x-mcp-header':'Method'},"
            + "'float_val':{'type':'number'},"
            + "'non_ascii_val':{'type':'string','x-mcp-header':'NonAscii'},"
            + "'whitespace_val':{'type':'string','x-mcp-header':'Whitespace'},"
            + "'internal_space_val':{'type':'string','x-mcp-header':'InternalSpace'},"
            + "'crlf_val':{'type':'string','x-mcp-header':'CrLf'},"
            + "'tab_val':{'type':'string','x-mcp-header':'Tab'},"
            + "'query':{'type':'string'}},'required':['region','priority','query']}";
    List<Annotation> annotations = ((Valid) ParamHeadersScanTest.scan(schema)).annotations();
    Map<String, String> headers =
        render(
            "{\"region\":\"us-west1\",\"priority\":42,\"verbose\":false,\"debug\":true,\"empty_val\":\"\","
                + "\"method_val\":\"test-method\",\"float_val\":3.14159,\"non_ascii_val\":\"Hello, 世界\","
                + "\"whitespace_val\":\" padded \",\"internal_space_val\":\"us west 1\",\"crlf_val\":\"line1\\r\\nline2\","
                + "\"tab_val\":\"\\tindented\",\"query\":\"SELECT * FROM users\"}",
            annotations);
    assertThat(headers)
        .containsExactly(
            entry("Mcp-Param-Region", "us-west1"),
            entry("Mcp-Param-Priority", "42"),
            entry("Mcp-Param-Verbose", "false"),
            entry("Mcp-Param-Debug", "true"),
            entry("Mcp-Param-EmptyVal", "=?base64??="),
            entry("Mcp-Param-Method", "test-method"),
            entry("Mcp-Param-NonAscii", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            entry("Mcp-Param-Whitespace", "=?base64?IHBhZGRlZCA=?="),
            entry("Mcp-Param-InternalSpace", "us west 1"),
            entry("Mcp-Param-CrLf", "=?base64?bGluZTENCmxpbmUy?="),
            entry("Mcp-Param-Tab", "=?base64?CWluZGVudGVk?="));
  }

  @Test
  void nullAndAbsentAreOmitted() {
    List<Annotation> annotations =
        List.of(
            new Annotation("Region", List.of("region"), Type.STRING),
            new Annotation("Verbose", List.of("verbose"), Type.BOOLEAN),
            new Annotation("Missing", List.of("missing"), Type.STRING));
    assertThat(render("{\"region\":\"us-east1\",\"verbose\":null}", annotations)).containsExactly(entry("Mcp-Param-Region", "us-east1"));
  }

  @Test
  void nestedPathsAreFollowedThroughObjectsOnly() {
    List<Annotation> deep = List.of(new Annotation("Deep", List.of("a", "b"), Type.STRING));
    assertThat(render("{\"a\":{\"b\":\"x\"}}", deep)).containsExactly(entry("Mcp-Param-Deep", "x"));
    assertThat(render("{\"a\":[{\"b\":\"x\"}]}", deep)).isEmpty();
    assertThat(render("{\"a\":\"b\"}", deep)).isEmpty();
    assertThat(render("{\"a\":null}", deep)).isEmpty();
  }

  @Test
  void argumentsThatAreNoObjectGiveNoHeaders() {
    List<Annotation> a = List.of(new Annotation("A", List.of("a"), Type.STRING));
    assertThat(render("[]", a)).isEmpty();
    assertThat(render("null", a)).isEmpty();
    assertThat(ParamHeaders.render(new byte[0], null, a)).isEmpty();
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      nullValues = "OMIT",
      delimiter = '|',
      value = {
        "42 | 42",
        "-7 | -7",
        "0 | 0",
        "-0 | 0",
        "42.0 | 42",
        "4.2e1 | 42",
        "4200e-2 | 42",
        "1E2 | 100",
        "-0.0 | 0",
        "0e-999999999 | 0",
        "9007199254740991 | 9007199254740991",
        "-9007199254740991 | -9007199254740991",
        "9007199254740991.0 | 9007199254740991",
        "9007199254740992 | OMIT",
        "-9007199254740992 | OMIT",
        "1e16 | OMIT",
        "1e999999999 | OMIT",
        "1e-999999999 | OMIT",
        "3.14159 | OMIT",
        "42.5 | OMIT",
        "true | true",
        "false | false",
        "null | OMIT",
        "{} | OMIT",
        "[1] | OMIT",
        "\"42\" | 42",
        "\"\" | =?base64??=",
        "\"=?base64?SGk=?=\" | =?base64?PT9iYXNlNjQ/U0drPT89?="
      })
  void valuesFollowTheirJsonType(String json, String header) {
    assertThat(one(json)).isEqualTo(header);
  }

  @Test
  void aNumberTooLongToConsiderIsOmitted() {
    assertThat(one("42." + "0".repeat(ParamHeaders.MAX_NUMBER_TEXT))).isNull();
    assertThat(one("42." + "0".repeat(ParamHeaders.MAX_NUMBER_TEXT - 3))).isEqualTo("42");
  }

  @Test
  void theDeclaredTypeDoesNotChangeTheRendering() {
    Annotation asInteger = new Annotation("V", List.of("v"), Type.INTEGER);
    assertThat(render("{\"v\":\"abc\"}", List.of(asInteger))).containsExactly(entry("Mcp-Param-V", "abc"));
  }

  @Test
  void theStringHeaderDecodesToTheArgument() {
    String value = "Grüße,\ttab and\nnewline ";
    String json = Json.quote(value);
    assertThat(McpName.decode(one(json))).contains(value);
  }
}
