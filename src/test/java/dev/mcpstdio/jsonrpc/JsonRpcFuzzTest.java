package dev.mcpstdio.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.mcpstdio.wire.Bytes;
import dev.mcpstdio.wire.Utf8;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Coverage-guided fuzzing of what reads a peer's JSON (docs/fuzzing.md): the codec and its
 * scanner held to Jackson's strict parser and to the JDK's strict UTF-8 decoder, and the streaming
 * scanner held to the codec however its input is cut. In {@code mvn verify} each target replays
 * its seeds under {@code src/test/resources/dev/mcpstdio/jsonrpc/JsonRpcFuzzTestInputs/}; with
 * {@code JAZZER_FUZZ=1} it fuzzes for {@code maxDuration}.
 */
class JsonRpcFuzzTest {

  /**
   * {@link JsonRpcCodec#parseReceived} throws nothing but {@link MalformedMessageException}; it
   * refuses exactly the bytes that are not strict UTF-8 or not one JSON value as Jackson reads it;
   * and what it classifies keeps the input's bytes, and a method, id and kind that agree with
   * Jackson's reading of the same object (escaped member names and escaped strings included).
   */
  @FuzzTest(maxDuration = "5m")
  void codecAgreesWithJackson(byte[] input) {
    boolean utf8 = Utf8.isValid(input);
    assertThat(utf8).as("Utf8.isValid against the JDK's strict decoder").isEqualTo(strictUtf8(input));
    JsonRpcMessage message;
    try {
      message = JsonRpcCodec.parseReceived(input, null);
    } catch (MalformedMessageException e) {
      assertThat(e.getMessage()).isNotBlank();
      if (utf8 && !startsWithBom(input)) {
        assertThat(jacksonAccepts(input)).as("the codec refused (%s) what Jackson accepts", e.getMessage()).isFalse();
      }
      return;
    }
    assertThat(utf8).as("classified bytes that are not UTF-8").isTrue();
    assertThat(jacksonAccepts(input)).as("classified what Jackson refuses").isTrue();
    assertThat(message.bytes()).isSameAs(input);
    byte[] trimmed = Bytes.trim(input);
    if (trimmed[0] == '{') {
      assertAgreesWithJackson(message, trimmed);
    } else if (message instanceof JsonRpcMessage.Batch batch) {
      for (JsonRpcMessage member : batch.members()) {
        if (member.bytes().length > 0 && member.bytes()[0] == '{') {
          assertAgreesWithJackson(member, member.bytes());
        } else {
          assertThat(member).isInstanceOf(JsonRpcMessage.Invalid.class);
        }
      }
    } else {
      assertThat(message).isInstanceOf(JsonRpcMessage.Invalid.class);
    }
  }

  /**
   * The streaming scanner, fed the input in the fuzzer's chunk sizes, has a layout exactly when
   * the whole-message path classifies it as one object (up to {@link StreamingScanner#MAX_MEMBERS}
   * members), and the message from the layout equals the full parse's; a scanner reset after
   * another message answers the same as a fresh one.
   */
  @FuzzTest(maxDuration = "5m")
  void streamingScannerAgreesWithTheCodec(FuzzedDataProvider data) {
    List<Integer> cuts = new ArrayList<>();
    int count = data.consumeInt(1, 8);
    for (int k = 0; k < count; k++) {
      cuts.add(data.consumeInt(1, 64));
    }
    byte[] first = data.consumeBytes(data.consumeInt(0, 64));
    byte[] input = data.consumeRemainingAsBytes();
    StreamingScannerPropertyTest.check(input, cuts);

    StreamingScanner reused = new StreamingScanner();
    reused.feed(first, 0, first.length);
    reused.reset();
    reused.feed(input, 0, input.length);
    StreamingScanner fresh = new StreamingScanner();
    fresh.feed(input, 0, input.length);
    assertThat(reused.layout() == null).isEqualTo(fresh.layout() == null);
    if (fresh.layout() != null) {
      byte[] trimmed = Bytes.trim(input);
      assertThat(JsonRpcCodec.parse(trimmed, reused.layout())).isEqualTo(JsonRpcCodec.parse(trimmed, fresh.layout()));
    }
  }

  /** What Jackson reads in a top-level object's members, last occurrence of a name winning as in the codec. */
  private static void assertAgreesWithJackson(JsonRpcMessage message, byte[] object) {
    JsonToken method = null;
    String methodText = null;
    JsonToken id = null;
    String idText = null;
    try (JsonParser p = Json.parser(object, 0, object.length)) {
      p.nextToken();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken t = p.nextToken();
        if (name.equals("method")) {
          method = t;
          methodText = t == JsonToken.VALUE_STRING ? p.getText() : null;
        } else if (name.equals("id")) {
          id = t;
          idText = t == JsonToken.VALUE_STRING ? p.getText() : null;
        }
        p.skipChildren();
      }
    } catch (IOException e) {
      throw new AssertionError("Jackson refused an object the codec classified", e);
    }
    boolean numericId = id == JsonToken.VALUE_NUMBER_INT || id == JsonToken.VALUE_NUMBER_FLOAT;
    boolean usableId = id == JsonToken.VALUE_STRING || numericId;
    if (method == JsonToken.VALUE_STRING && id == null) {
      assertThat(message).isInstanceOf(JsonRpcMessage.Notification.class);
      assertThat(((JsonRpcMessage.Notification) message).method()).isEqualTo(methodText);
    } else if (method == JsonToken.VALUE_STRING && usableId) {
      assertThat(message).isInstanceOf(JsonRpcMessage.Request.class);
      JsonRpcMessage.Request r = (JsonRpcMessage.Request) message;
      assertThat(r.method()).isEqualTo(methodText);
      assertThat(r.id().isString()).isEqualTo(id == JsonToken.VALUE_STRING);
      if (idText != null) {
        assertThat(r.id().value()).isEqualTo(idText);
      }
    } else if (method != null) {
      assertThat(message).isInstanceOf(JsonRpcMessage.Invalid.class);
    } else {
      assertThat(message).isInstanceOfAny(JsonRpcMessage.Response.class, JsonRpcMessage.Invalid.class);
    }
  }

  /**
   * Jackson's verdict on the text the UTF-8 bytes spell (call only for valid UTF-8). Read as
   * characters: from bytes, Jackson guesses the encoding, and takes {@code 00 31} for UTF-16 "1".
   */
  static boolean jacksonAccepts(byte[] utf8) {
    try (JsonParser p = Json.FACTORY.createParser(new String(utf8, StandardCharsets.UTF_8))) {
      JsonToken t = p.nextToken();
      if (t == null) {
        return false;
      }
      if (t.isStructStart()) {
        p.skipChildren();
      } else {
        p.finishToken();
      }
      return p.nextToken() == null;
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean strictUtf8(byte[] bytes) {
    try {
      StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  private static boolean startsWithBom(byte[] b) {
    return b.length >= 3 && (b[0] & 0xFF) == 0xEF && (b[1] & 0xFF) == 0xBB && (b[2] & 0xFF) == 0xBF;
  }
}
