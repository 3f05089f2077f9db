package dev.mcpstdio.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class JsonCanonicalTest {

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static boolean same(String a, String b) {
    return JsonCanonical.same(utf8(a), utf8(b));
  }

  @ParameterizedTest(name = "{0} == {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
      // member order
      "{\"a\":1,\"b\":2}|{\"b\":2,\"a\":1}",
      "{\"x\":{\"p\":1,\"q\":[1,{\"m\":1,\"n\":2}]},\"y\":null}|{\"y\":null,\"x\":{\"q\":[1,{\"n\":2,\"m\":1}],\"p\":1}}",
      // whitespace
      "{\"a\":[1,2,3]}|` { \"a\" : [ 1 ,\t2 ,\r\n 3 ] } `",
      "[]|[ ]",
      "{}|`{\n}`",
      // string escapes
      "\"a\"|\"\\u0061\"",
      "{\"a\":\"x\"}|{\"\\u0061\":\"\\u0078\"}",
      "\"/\"|\"\\/\"",
      "\"\u00e9\"|\"\\u00e9\"",
      "\"\\ud83d\\ude00\"|\"\ud83d\ude00\"",
      "\"tab\\there\"|\"tab\\u0009here\"",
      // number spelling
      "1|1.0",
      "1|1e0",
      "1|1E+0",
      "100|1e2",
      "100|1.00e2",
      "0.5|5e-1",
      "-0.25|-25E-2",
      "0|0.000",
      "0|-0",
      "{\"id\":7}|{\"id\":7.000}",
      "123456789012345678901234567890|1.23456789012345678901234567890e29",
      // literals
      "[true,false,null]|[ true , false , null ]"})
  void sameValuesInDifferentSpellingsAreTheSame(String a, String b) {
    assertThat(same(a, b)).isTrue();
    assertThat(same(b, a)).isTrue();
    assertThat(JsonCanonical.of(utf8(a))).isNotNull().isEqualTo(JsonCanonical.of(utf8(b)));
  }

  @ParameterizedTest(name = "{0} != {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
      "[1,2]|[2,1]",
      "[[1],[2]]|[[2],[1]]",
      "{\"a\":[1,2]}|{\"a\":[2,1]}",
      "{\"a\":1}|{\"a\":2}",
      "{\"a\":1}|{\"b\":1}",
      "{\"a\":1}|{\"a\":1,\"b\":2}",
      "{\"a\":1}|{\"A\":1}",
      "1|\"1\"",
      "1|2",
      "1|1.0000000000000000001",
      "0.1|0.10000000000000001",
      "true|\"true\"",
      "null|\"null\"",
      "null|{}",
      "[]|{}",
      "[]|[null]",
      "\"a\"|\"A\"",
      "\"a\"|\"a \"",
      "{\"a\":{}}|{\"a\":[]}",
      "[1,[2]]|[[1],2]",
      "{\"a\":\"b\",\"c\":\"d\"}|{\"a\":\"d\",\"c\":\"b\"}",
      "{\"a,b\":1}|{\"a\":1,\"b\":1}",
      "[\"a\",\"b\"]|[\"a,b\"]",
      "{\"a\":\"1\"}|{\"a\":1}"})
  void differentValuesDiffer(String a, String b) {
    assertThat(same(a, b)).isFalse();
    assertThat(same(b, a)).isFalse();
  }

  @Test
  void identicalBytesAreTheSame() {
    byte[] message = utf8("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}");

    assertThat(JsonCanonical.same(message, message.clone())).isTrue();
  }

  @Test
  void theCanonicalFormSortsMembersAndRewritesStringsAndNumbers() {
    assertThat(JsonCanonical.of(utf8(" { \"b\" : 1.50 , \"a\" : [ \"\\u0041\", 2E1 ] } "))).isEqualTo("{\"a\":[\"A\",20],\"b\":1.5}");
    assertThat(JsonCanonical.of(utf8("\"\\u0000\""))).isEqualTo(Json.quote("\u0000"));
    assertThat(JsonCanonical.of(utf8("42"))).isEqualTo("42");
    assertThat(JsonCanonical.of(utf8("null"))).isEqualTo("null");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "{", "}", "[1,", "[1,]", "{\"a\":}", "{\"a\" 1}", "{a:1}", "'a'", "[1]]", "{} x",
      "nul", "tru", "01", "1.", ".5", "+1", "NaN", "Infinity", "\"unterminated", "\"bad \\q escape\"", "[1 2]",
      "{\"a\":1,}", "\u00ff"})
  void malformedJsonIsNeverTheSame(String malformed) {
    assertThat(JsonCanonical.of(utf8(malformed))).isNull();
    assertThat(same(malformed, "{}")).isFalse();
    assertThat(same("{}", malformed)).isFalse();
    assertThat(same(malformed, "1")).isFalse();
  }

  @Test
  void invalidUtf8IsNotJson() {
    byte[] bad = {'"', (byte) 0xff, '"'};

    assertThat(JsonCanonical.of(bad)).isNull();
    assertThat(JsonCanonical.same(bad, utf8("\"\uFFFD\""))).isFalse();
  }

  @Test
  void aSequenceOfRootValuesIsNotJson() {
    assertThat(JsonCanonical.of(utf8("1 2"))).isNull();
    assertThat(same("1 2", "2")).isFalse();
    assertThat(same("{\"id\":1} {\"id\":2}", "{\"id\":2}")).isFalse();
  }

  @Test
  void identicalMalformedBytesAreNotTheSame() {
    assertThat(same("{", "{")).isFalse();
    assertThat(same("", "")).isFalse();
  }

  @Test
  void deepNestingDoesNotOverflowTheStack() throws Exception {
    int depth = 9000;
    String deep = "[".repeat(depth) + "]".repeat(depth);
    String spaced = "[ ".repeat(depth) + " ]".repeat(depth);
    String deeperByOne = "[".repeat(depth + 1) + "]".repeat(depth + 1);

    // a small stack makes the point: nothing here may recurse per level
    CompletableFuture<boolean[]> result = new CompletableFuture<>();
    Thread worker = new Thread(null, () -> {
      try {
        result.complete(new boolean[] {same(deep, spaced), same(deep, deeperByOne)});
      } catch (Throwable t) {
        result.completeExceptionally(t);
      }
    }, "deep-json", 256 * 1024);
    worker.start();

    boolean[] answers = result.get(30, TimeUnit.SECONDS);
    assertThat(answers[0]).isTrue();
    assertThat(answers[1]).isFalse();
  }

  @Test
  void deepObjectsAreCompared() {
    int depth = 5000;
    String a = "{\"k\":".repeat(depth) + "{\"x\":1,\"y\":2}" + "}".repeat(depth);
    String b = "{\"k\":".repeat(depth) + "{\"y\":2,\"x\":1.0}" + "}".repeat(depth);
    String c = "{\"k\":".repeat(depth) + "{\"y\":2,\"x\":3}" + "}".repeat(depth);

    assertThat(same(a, b)).isTrue();
    assertThat(same(a, c)).isFalse();
  }

  @Test
  void nestingPastTheLimitIsRejectedNotCrashed() {
    int depth = Json.MAX_NESTING + 1;
    String tooDeep = "[".repeat(depth) + "]".repeat(depth);
    String alsoTooDeep = "[ ".repeat(depth) + "]".repeat(depth);

    assertThat(JsonCanonical.of(utf8(tooDeep))).isNull();
    assertThat(same(tooDeep, alsoTooDeep)).isFalse();
  }

  @Test
  void duplicateMembersAreComparedAsTheyAre() {
    // JSON leaves duplicate names undefined; the canonical form keeps both, so order does not matter
    assertThat(same("{\"a\":1,\"a\":2}", "{\"a\":2,\"a\":1}")).isTrue();
    assertThat(same("{\"a\":1,\"a\":2}", "{\"a\":2}")).isFalse();
  }

  @Test
  void aRequestRetriedWithAnotherSpellingIsTheSame() {
    String first = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}";
    String retry = "{\n  \"params\": {\"arguments\": {\"text\": \"h\\u0069\"}, \"name\": \"echo\"},\n  \"method\": \"tools/call\","
        + " \"id\": 1.0, \"jsonrpc\": \"2.0\"\n}";
    String other = first.replace("\"hi\"", "\"ho\"");

    assertThat(same(first, retry)).isTrue();
    assertThat(same(first, other)).isFalse();
  }
}
