package dev.mcpstdio.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PartialMessageTest {

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static JsonRpcId head(String full, int cut) {
    return PartialMessage.requestId(Arrays.copyOf(utf8(full), cut));
  }

  @Test
  void idBeforeTheCutIsFound() {
    String full = "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\",\"params\":{\"x\":\"" + "a".repeat(1000) + "\"}}";
    JsonRpcId id = head(full, 200);
    assertThat(id).isEqualTo(JsonRpcId.ofNumber("42"));
    assertThat(id.json()).isEqualTo("42");
  }

  @Test
  void idAfterMethodBeforeTheCut() {
    String full = "{\"method\":\"tools/call\",\"id\":\"abc\",\"params\":{\"x\":\"" + "a".repeat(1000) + "\"}}";
    assertThat(head(full, 100)).isEqualTo(JsonRpcId.ofString("\"abc\"", "abc"));
  }

  @Test
  void idBeforeMethodWhenMethodIsCut() {
    String full = "{\"id\":\"abc\",\"params\":{\"x\":\"" + "a".repeat(1000) + "\"},\"method\":\"m\"}";
    assertThat(head(full, 100)).isEqualTo(JsonRpcId.ofString("\"abc\"", "abc"));
  }

  @Test
  void idAfterTheCutIsNotFound() {
    String full = "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"x\":\"" + "a".repeat(1000) + "\"},\"id\":42}";
    assertThat(head(full, 200)).isNull();
  }

  @Test
  void nestedIdKeysAreNotPickedUp() {
    String full =
        "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"id\":7,\"arguments\":{\"id\":8,\"blob\":\""
            + "b".repeat(1000) + "\"}},\"id\":9}";
    assertThat(head(full, 300)).isNull();
    // and with the whole message the top-level id is found, not a nested one
    assertThat(PartialMessage.requestId(utf8(full))).isEqualTo(JsonRpcId.ofNumber("9"));
  }

  @Test
  void idInsideAStringIsNotPickedUp() {
    String full = "{\"method\":\"m\",\"params\":\"\\\"id\\\":5 " + "c".repeat(500) + "\",\"id\":6}";
    assertThat(head(full, 100)).isNull();
  }

  @Test
  void stringIdCutInTheMiddleIsNotGuessed() {
    String full = "{\"method\":\"m\",\"id\":\"abcdef\",\"params\":{}}";
    int cut = full.indexOf("abc") + 3;
    assertThat(head(full, cut)).isNull();
  }

  @Test
  void numericIdCutInTheMiddleIsNotGuessed() {
    // the head stops after "12" of 123456: reporting 12 would answer the wrong request
    String full = "{\"method\":\"m\",\"id\":123456,\"params\":{}}";
    int cut = full.indexOf("123") + 2;
    assertThat(head(full, cut)).isNull();
    assertThat(head(full, full.indexOf("123456") + 6)).isNull(); // cannot know it is complete
    assertThat(head(full, full.indexOf("123456") + 7)).isEqualTo(JsonRpcId.ofNumber("123456"));
  }

  @Test
  void numericIdCutBeforeTheExponent() {
    String full = "{\"method\":\"m\",\"id\":1e3,\"params\":{}}";
    assertThat(head(full, full.indexOf("1e3") + 1)).isNull();
  }

  @Test
  void nonObjectHeadsGiveNull() {
    assertThat(PartialMessage.requestId(utf8("[{\"id\":1,\"method\":\"m\"}"))).isNull();
    assertThat(PartialMessage.requestId(utf8(""))).isNull();
    assertThat(PartialMessage.requestId(utf8("garbage"))).isNull();
  }

  @Test
  void nonScalarIdIsNotAnId() {
    assertThat(PartialMessage.requestId(utf8("{\"id\":{\"a\":1},\"method\":\"m\",\"params\":{\"x\""))).isNull();
    assertThat(PartialMessage.requestId(utf8("{\"id\":null,\"method\":\"m\",\"params\":{\"x\""))).isNull();
  }

  @Test
  void everyCutOfAMessageGivesEitherNullOrTheRightId() {
    String full = "{\"jsonrpc\":\"2.0\",\"id\":98765,\"method\":\"tools/call\",\"params\":{\"id\":1,\"s\":\"é😀\"}}";
    byte[] bytes = utf8(full);
    JsonRpcId right = JsonRpcId.ofNumber("98765");
    int firstFound = -1;
    for (int cut = 0; cut <= bytes.length; cut++) {
      JsonRpcId id = PartialMessage.requestId(Arrays.copyOf(bytes, cut));
      if (id != null) {
        assertThat(id).as("cut at %d", cut).isEqualTo(right);
        if (firstFound < 0) {
          firstFound = cut;
        }
      }
    }
    assertThat(firstFound).isEqualTo(full.indexOf("98765") + 6);
  }
}
