package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.JsonSpan;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class ListMergeTest {

  static final JsonMapper MAPPER = JsonMapper.builder().build();

  static ListMerge.Page page(String resultJson) throws Exception {
    byte[] bytes = ("{\"jsonrpc\":\"2.0\",\"id\":\"mcp-stdio/page-1\",\"result\":" + resultJson + "}")
        .getBytes(StandardCharsets.UTF_8);
    Response r = (Response) JsonRpcCodec.parse(bytes);
    return new ListMerge.Page(r.bytes(), r.result());
  }

  static String merge(String listField, String resume, String... results) throws Exception {
    List<ListMerge.Page> pages = new ArrayList<>();
    for (String r : results) {
      pages.add(page(r));
    }
    byte[] merged = ListMerge.merge(pages, listField, resume);
    MAPPER.readTree(merged); // always well-formed JSON
    return new String(merged, StandardCharsets.UTF_8);
  }

  static Map<String, JsonSpan> fields(String json) {
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    return Json.fields(b, new JsonSpan(0, b.length));
  }

  static String member(String json, String name) {
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    JsonSpan s = Json.field(b, new JsonSpan(0, b.length), name);
    return s == null ? null : s.text(b);
  }

  @Test
  void threePagesMergeInOrderWithoutNextCursor() throws Exception {
    String merged =
        merge(
            "tools",
            null,
            "{\"tools\":[{\"name\":\"a\"},{\"name\":\"b\"}],\"nextCursor\":\"c1\"}",
            "{\"tools\":[{\"name\":\"c\"}],\"nextCursor\":\"c2\"}",
            "{\"tools\":[{\"name\":\"d\"}]}");
    assertThat(merged).isEqualTo("{\"tools\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"},{\"name\":\"d\"}]}");
  }

  @Test
  void listItemsKeepTheirExactBytes() throws Exception {
    String item1 = "{ \"name\" : \"é\\u00e9\",\n \"n\": 1.50e1, \"s\":\"\\/\" }";
    String item2 = "{\"name\":\"😀\",\"inputSchema\":{\"type\":\"object\",\"properties\":{}}}";
    String merged =
        merge("tools", null, "{\"tools\":[ " + item1 + " ],\"nextCursor\":\"x\"}", "{\"tools\":[" + item2 + "]}");
    assertThat(merged).isEqualTo("{\"tools\":[" + item1 + "," + item2 + "]}");
  }

  @Test
  void otherMembersLastWriteWinsAndKeepFirstPosition() throws Exception {
    String merged =
        merge(
            "resources",
            null,
            "{\"_meta\":{\"page\":1},\"resources\":[1],\"extra\":\"first\",\"nextCursor\":\"a\"}",
            "{\"resources\":[2],\"_meta\":{\"page\":2},\"nextCursor\":\"b\"}",
            "{\"late\":true,\"resources\":[3]}");
    assertThat(merged)
        .isEqualTo("{\"_meta\":{\"page\":2},\"resources\":[1,2,3],\"extra\":\"first\",\"late\":true}");
  }

  @Test
  void resumeCursorIsAddedAndOldCursorsRemoved() throws Exception {
    String merged =
        merge("prompts", "next \"one\"", "{\"prompts\":[1],\"nextCursor\":\"p2\"}", "{\"prompts\":[2],\"nextCursor\":\"next \\\"one\\\"\"}");
    assertThat(fields(merged).keySet()).containsExactly("prompts", "nextCursor");
    assertThat(Json.string(merged.getBytes(StandardCharsets.UTF_8), fields(merged).get("nextCursor")))
        .isEqualTo("next \"one\"");
    assertThat(member(merged, "prompts")).isEqualTo("[1,2]");
  }

  @Test
  void missingListOnSomePageAndEmptyLists() throws Exception {
    assertThat(merge("tools", null, "{\"tools\":[],\"nextCursor\":\"a\"}", "{\"other\":1}", "{\"tools\":[9]}"))
        .isEqualTo("{\"tools\":[9],\"other\":1}");
    assertThat(merge("tools", null, "{\"x\":1}")).isEqualTo("{\"x\":1,\"tools\":[]}");
    assertThat(merge("tools", null)).isEqualTo("{\"tools\":[]}");
  }

  @Test
  void nonArrayListFieldContributesNoItems() throws Exception {
    assertThat(merge("tools", null, "{\"tools\":null}", "{\"tools\":[1]}")).isEqualTo("{\"tools\":[1]}");
  }

  @Test
  void nonObjectResultIsSkipped() throws Exception {
    assertThat(merge("tools", null, "{\"tools\":[1],\"ttlMs\":5}", "[1,2]", "{\"tools\":[2],\"ttlMs\":7}"))
        .isEqualTo("{\"tools\":[1,2],\"ttlMs\":5}");
  }

  // ---- ttlMs ---------------------------------------------------------------------------

  @Test
  void ttlTakesTheMinimumKeepingItsSpelling() throws Exception {
    assertThat(member(merge("tools", null, "{\"tools\":[],\"ttlMs\":5000}", "{\"tools\":[],\"ttlMs\":1.2e3}", "{\"tools\":[],\"ttlMs\":3000}"), "ttlMs"))
        .isEqualTo("1.2e3");
  }

  @Test
  void ttlMissingOnOnePageBecomesZero() throws Exception {
    assertThat(member(merge("tools", null, "{\"tools\":[],\"ttlMs\":5000}", "{\"tools\":[]}"), "ttlMs")).isEqualTo("0");
    assertThat(member(merge("tools", null, "{\"tools\":[]}", "{\"tools\":[],\"ttlMs\":5000}"), "ttlMs")).isEqualTo("0");
  }

  @Test
  void ttlAbsentEverywhereStaysAbsent() throws Exception {
    String merged = merge("tools", null, "{\"tools\":[]}", "{\"tools\":[]}");
    assertThat(fields(merged)).doesNotContainKey("ttlMs").doesNotContainKey("cacheScope");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {"-1", "true", "\"5000\"", "null", "{}", "[1]", "-0.5"})
  void ttlInvalidOnAnyPageBecomesZero(String invalid) throws Exception {
    assertThat(member(merge("tools", null, "{\"tools\":[],\"ttlMs\":5000}", "{\"tools\":[],\"ttlMs\":" + invalid + "}"), "ttlMs"))
        .isEqualTo("0");
    assertThat(member(merge("tools", null, "{\"tools\":[],\"ttlMs\":" + invalid + "}"), "ttlMs")).isEqualTo("0");
  }

  @Test
  void ttlHugeIntegersCompareExactly() throws Exception {
    String big = "123456789012345678901234567890";
    String bigger = "123456789012345678901234567891";
    assertThat(member(merge("tools", null, "{\"tools\":[],\"ttlMs\":" + bigger + "}", "{\"tools\":[],\"ttlMs\":" + big + "}"), "ttlMs"))
        .isEqualTo(big);
    assertThat(member(merge("tools", null, "{\"tools\":[],\"ttlMs\":1e400}", "{\"tools\":[],\"ttlMs\":" + big + "}"), "ttlMs"))
        .isEqualTo(big);
  }

  @Test
  void ttlZeroIsValidAndWins() throws Exception {
    assertThat(member(merge("tools", null, "{\"tools\":[],\"ttlMs\":0}", "{\"tools\":[],\"ttlMs\":10}"), "ttlMs")).isEqualTo("0");
  }

  @Test
  void mergeTtlDirectly() {
    assertThat(ListMerge.mergeTtl(Arrays.asList(null, null))).isNull();
    assertThat(ListMerge.mergeTtl(List.of())).isNull();
    assertThat(ListMerge.mergeTtl(List.of("10", "20"))).isEqualTo("10");
    assertThat(ListMerge.mergeTtl(Arrays.asList("10", null))).isEqualTo("0");
    assertThat(ListMerge.mergeTtl(List.of("10", "abc"))).isEqualTo("0");
  }

  // ---- cacheScope --------------------------------------------------------------------------

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "\"public\" | \"public\" | \"public\"",
        "\"public\" | \"private\" | \"private\"",
        "\"private\" | \"public\" | \"private\"",
        "\"private\" | \"private\" | \"private\"",
        "\"public\" | - | \"private\"",
        "- | \"public\" | \"private\"",
        "\"public\" | \"shared\" | \"private\"",
        "\"public\" | 1 | \"private\"",
        "\"public\" | null | \"private\"",
        "\"PUBLIC\" | \"public\" | \"private\"",
        "- | - | -",
      })
  void cacheScope(String first, String second, String expected) throws Exception {
    String p1 = "{\"tools\":[]" + (first.equals("-") ? "" : ",\"cacheScope\":" + first) + "}";
    String p2 = "{\"tools\":[]" + (second.equals("-") ? "" : ",\"cacheScope\":" + second) + "}";
    String merged = merge("tools", null, p1, p2);
    assertThat(member(merged, "cacheScope")).isEqualTo(expected.equals("-") ? null : expected);
  }

  @Test
  void hintsComeAfterMembersAndBeforeResumeCursor() throws Exception {
    String merged = merge("tools", "r", "{\"ttlMs\":5,\"cacheScope\":\"public\",\"tools\":[1],\"nextCursor\":\"r\"}");
    assertThat(merged).isEqualTo("{\"tools\":[1],\"ttlMs\":5,\"cacheScope\":\"public\",\"nextCursor\":\"r\"}");
  }

  @Test
  void mergedIsSemanticallyTheUnionOfPages() throws Exception {
    String merged =
        merge(
            "resourceTemplates",
            null,
            "{\"resourceTemplates\":[{\"uriTemplate\":\"a/{x}\"}],\"nextCursor\":\"1\"}",
            "{\"resourceTemplates\":[{\"uriTemplate\":\"b/{y}\"}]}");
    JsonNode node = MAPPER.readTree(merged);
    assertThat(node.get("resourceTemplates").size()).isEqualTo(2);
    assertThat(node.get("resourceTemplates").get(1).get("uriTemplate").asString()).isEqualTo("b/{y}");
    assertThat(node.has("nextCursor")).isFalse();
  }
}
