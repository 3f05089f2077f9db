package dev.mcpstdio.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class StreamingScannerTest {

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static MessageLayout scan(byte[] bytes, int chunk) {
    StreamingScanner scanner = new StreamingScanner();
    for (int at = 0; at < bytes.length; at += chunk) {
      scanner.feed(bytes, at, Math.min(chunk, bytes.length - at));
    }
    return scanner.layout();
  }

  @Test
  void aRequestCutAtEveryPointClassifiesAsTheFullParseDoes() throws Exception {
    byte[] bytes = utf8("{\"jsonrpc\":\"2.0\",\"id\":\"a\\u00e9\",\"method\":\"tools/call\","
        + "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"h\u00e9 \u6f22 \ud83d\ude00 \\n\",\"n\":[1,-2.5e3,true,null]}}}");
    JsonRpcMessage expected = JsonRpcCodec.parse(bytes);
    for (int cut = 0; cut <= bytes.length; cut++) {
      StreamingScanner scanner = new StreamingScanner();
      scanner.feed(bytes, 0, cut);
      scanner.feed(bytes, cut, bytes.length - cut);
      assertThat(JsonRpcCodec.parse(bytes, scanner.layout())).as("cut at %d", cut).isEqualTo(expected);
    }
    Request request = (Request) JsonRpcCodec.parse(bytes, scan(bytes, 1));
    assertThat(request.id().value()).isEqualTo("a\u00e9");
    assertThat(request.method()).isEqualTo("tools/call");
  }

  @Test
  void aLargeResultIsLaidOutWithItsSpans() throws Exception {
    byte[] bytes = utf8("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\""
        + "x".repeat(1 << 20) + "\"}]}}");
    Response response = (Response) JsonRpcCodec.parse(bytes, scan(bytes, 64 * 1024 - 3));
    assertThat(response).isEqualTo(JsonRpcCodec.parse(bytes));
    assertThat(response.result().length()).isGreaterThan(1 << 20);
  }

  @Test
  void givesNoLayoutForWhatTheFullParseMustJudge() {
    for (String s : List.of(
        "", "  ", "[{\"jsonrpc\":\"2.0\",\"method\":\"a\"}]", "\"text\"", "{", "{\"id\":1", "{\"id\":1}x",
        "{\"id\":1}{}", "{\"id\":01}", "{\"id\":1.}", "{\"id\":-}", "{\"id\":1e}", "{\"id\":tru}", "{\"id\":nul}",
        "{\"a\":\"\\x\"}", "{\"a\":\"\\u12G4\"}", "{\"a\":\"tab\there\"}", "{\"a\" 1}", "{\"a\":1,}", "{,}",
        "{\"a\":[1,]}", "{\"a\":[1}", "{\"a\":{\"b\":1]}", "{'a':1}", "{\"a\":1 \"b\":2}")) {
      assertThat(scan(utf8(s), 3)).as(s).isNull();
    }
  }

  @Test
  void refusesMalformedUtf8InsideStrings() {
    byte[][] bad = {
      {(byte) 0xC0, (byte) 0xAF}, // overlong
      {(byte) 0xE0, (byte) 0x9F, (byte) 0xBF}, // overlong three-byte form
      {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, // a surrogate
      {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, // above U+10FFFF
      {(byte) 0xE2, (byte) 0x80}, // truncated by the closing quote
      {(byte) 0xBF}, // a lone continuation byte
    };
    for (byte[] b : bad) {
      byte[] message = new byte[b.length + 10];
      System.arraycopy(utf8("{\"a\":\""), 0, message, 0, 6);
      System.arraycopy(b, 0, message, 6, b.length);
      System.arraycopy(utf8("\"}"), 0, message, 6 + b.length, 2);
      byte[] exact = java.util.Arrays.copyOf(message, b.length + 8);
      for (int chunk = 1; chunk <= exact.length; chunk++) {
        assertThat(scan(exact, chunk)).isNull();
      }
    }
  }

  @Test
  void aMessageWithMoreMembersThanItNotesIsLeftToTheFullParse() throws Exception {
    StringBuilder b = new StringBuilder("{\"id\":1,\"result\":{}");
    for (int k = 0; k < StreamingScanner.MAX_MEMBERS; k++) {
      b.append(",\"m").append(k).append("\":").append(k);
    }
    byte[] bytes = utf8(b.append("}").toString());
    assertThat(scan(bytes, 5)).isNull();
    assertThat(JsonRpcCodec.parse(bytes)).isInstanceOf(Response.class);
  }

  @Test
  void nestingIsBoundAsInTheFullParse() throws Exception {
    int inner = Json.MAX_NESTING - 1; // the message's own object is the first level
    byte[] deepest = utf8("{\"a\":" + "[".repeat(inner) + "]".repeat(inner) + "}");
    byte[] tooDeep = utf8("{\"a\":" + "[".repeat(inner + 1) + "]".repeat(inner + 1) + "}");
    assertThat(scan(deepest, 100)).isNotNull();
    JsonRpcCodec.parse(deepest);
    assertThat(scan(tooDeep, 100)).isNull();
    assertThatThrownBy(() -> JsonRpcCodec.parse(tooDeep)).isInstanceOf(MalformedMessageException.class);
  }

  @Test
  void objectsAndArraysNestedPastSixtyFourAndOneHundredTwentyEightLevelsAreTrackedLevelByLevel()
      throws Exception {
    for (int levels : new int[] {70, 130, 200}) {
      StringBuilder open = new StringBuilder();
      StringBuilder close = new StringBuilder();
      for (int k = 0; k < levels; k++) {
        boolean object = k % 3 != 1; // objects and arrays mixed, so each level's kind matters
        open.append(object ? "{\"k\":" : "[");
        close.insert(0, object ? "}" : "]");
      }
      byte[] good = utf8("{\"id\":1,\"result\":" + open + "0" + close + "}");
      JsonRpcMessage expected = JsonRpcCodec.parse(good);
      assertThat(JsonRpcCodec.parse(good, scan(good, 7))).as("%d levels", levels).isEqualTo(expected);
      // The same with the bracket that closes level 100 (or the deepest) of the wrong kind.
      int wrong = close.length() - Math.min(levels, 100);
      char bad = close.charAt(wrong) == '}' ? ']' : '}';
      String broken = close.substring(0, wrong) + bad + close.substring(wrong + 1);
      byte[] mismatched = utf8("{\"id\":1,\"result\":" + open + "0" + broken + "}");
      assertThat(scan(mismatched, 7)).as("%d levels, one bracket wrong", levels).isNull();
      assertThatThrownBy(() -> JsonRpcCodec.parse(mismatched)).isInstanceOf(MalformedMessageException.class);
    }
  }

  @Test
  void resetStartsANewMessage() throws Exception {
    StreamingScanner scanner = new StreamingScanner();
    byte[] broken = utf8("{\"id\":1,");
    scanner.feed(broken, 0, broken.length);
    scanner.reset();
    byte[] good = utf8("\t{\"id\":2,\"result\":null}  \r");
    scanner.feed(good, 0, good.length);
    byte[] trimmed = utf8("{\"id\":2,\"result\":null}");
    assertThat(JsonRpcCodec.parse(trimmed, scanner.layout())).isEqualTo(JsonRpcCodec.parse(trimmed));
  }

  @Test
  void aLayoutIsOnlyTakenForTheBytesItDescribes() {
    byte[] bytes = utf8("{\"id\":1,\"result\":2}");
    MessageLayout layout = scan(bytes, 4);
    assertThatThrownBy(() -> JsonRpcCodec.parse(utf8("{\"id\":1,\"result\":22}"), layout))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> JsonRpcCodec.parse(bytes, null)).isInstanceOf(IllegalArgumentException.class);
  }
}
