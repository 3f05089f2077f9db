package dev.mcpstdio.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.mcpstdio.wire.Bytes;
import dev.mcpstdio.wire.Utf8;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The streaming scanner agrees with the whole-message path on every input, however it is cut
 * into chunks: it has a layout exactly when that path classifies the bytes as one object (valid
 * UTF-8, well-formed, at most {@link StreamingScanner#MAX_MEMBERS} members), and the message
 * classified from the layout equals the one classified by a full scan.
 */
class StreamingScannerPropertyTest {

  /** Pieces of JSON, good and bad, so that random sequences reach every state and error. */
  private static final List<String> PIECES = List.of(
      "{", "}", "[", "]", ":", ",", " ", "\n", "\r", "\t", "\"", "\"id\"", "\"method\"", "\"result\"",
      "\"error\"", "\"params\"", "\"i\\u0064\"", "\"x\"", "\"\\n\\\"\\\\\\/\\b\\f\\r\\t\"", "\"\\u00e9\"",
      "\"\\q\"", "\"\\u12\"", "\"é漢😀\u2028\"", "1", "-0", "0.5e+3", "12E-2", "01", "1.", "-", "1e", "2.5E",
      "true", "false", "null", "fals", "nul", "tru", "\u0001", "x", "\"tools/call\"", "7");

  /** Byte sequences that are not (or not only) valid UTF-8. */
  private static final List<byte[]> BAD_BYTES = List.of(
      new byte[] {(byte) 0xC0, (byte) 0x80}, new byte[] {(byte) 0xC1, (byte) 0xBF}, new byte[] {(byte) 0x80},
      new byte[] {(byte) 0xE0, (byte) 0x80, (byte) 0x80}, new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
      new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, new byte[] {(byte) 0xF5},
      new byte[] {(byte) 0xE2, (byte) 0x82}, new byte[] {(byte) 0xF0, (byte) 0x9F, (byte) 0x98},
      new byte[] {(byte) 0xC3, (byte) 0xA9}, new byte[] {(byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80});

  @Provide
  Arbitrary<byte[]> pieces() {
    Arbitrary<byte[]> piece = Arbitraries.oneOf(
        Arbitraries.of(PIECES).map(p -> p.getBytes(StandardCharsets.UTF_8)), Arbitraries.of(BAD_BYTES));
    return piece.list().ofMaxSize(40).map(StreamingScannerPropertyTest::join);
  }

  @Provide
  Arbitrary<String> value() {
    return JsonValueArbitraries.values();
  }

  /** Messages built as JSON-RPC peers write them, with random members and whitespace. */
  @Provide
  Arbitrary<byte[]> messages() {
    Arbitrary<String> name = Arbitraries.of("\"jsonrpc\"", "\"id\"", "\"method\"", "\"params\"", "\"result\"",
        "\"error\"", "\"i\\u0064\"", "\"other\"", "\"\"");
    Arbitrary<String> member = net.jqwik.api.Combinators.combine(name, value(), Arbitraries.of("", " ", "\n\t"))
        .as((n, v, space) -> space + n + space + ":" + space + v + space);
    return member.list().ofMaxSize(36)
        .map(members -> (" {" + String.join(",", members) + "}\r").getBytes(StandardCharsets.UTF_8));
  }

  @Property(tries = 2000)
  void randomPiecesAgreeWithTheFullParse(
      @ForAll("pieces") byte[] input,
      @ForAll @Size(min = 1, max = 12) List<@IntRange(min = 1, max = 9) Integer> cuts) {
    check(input, cuts);
  }

  @Property(tries = 1500)
  void messagesAgreeWithTheFullParse(
      @ForAll("messages") byte[] input,
      @ForAll @Size(min = 1, max = 12) List<@IntRange(min = 1, max = 40) Integer> cuts) {
    check(input, cuts);
  }

  @Property(tries = 1500)
  void messagesWithOneByteChangedAgreeWithTheFullParse(
      @ForAll("messages") byte[] input,
      @ForAll @IntRange(min = 0, max = 100_000) int where,
      @ForAll("pieces") byte[] replacement,
      @ForAll @Size(min = 1, max = 12) List<@IntRange(min = 1, max = 40) Integer> cuts) {
    int at = where % input.length;
    ByteArrayOutputStream mutated = new ByteArrayOutputStream();
    mutated.write(input, 0, at);
    mutated.writeBytes(replacement.length == 0 ? new byte[] {'"'} : replacement);
    mutated.write(input, at + 1, input.length - at - 1);
    check(mutated.toByteArray(), cuts);
  }

  /** Feeds {@code input} in chunks of the given sizes (repeating them) and compares. */
  static void check(byte[] input, List<Integer> cuts) {
    StreamingScanner scanner = new StreamingScanner();
    scanner.feed(new byte[] {'?'}, 1, 0); // an empty chunk is nothing
    int at = 0;
    for (int k = 0; at < input.length; k++) {
      int n = Math.min(cuts.get(k % cuts.size()), input.length - at);
      // Feed from the middle of a larger array, as readers do from their buffers.
      byte[] buffer = new byte[n + 6];
      System.arraycopy(input, at, buffer, 3, n);
      scanner.feed(buffer, 3, n);
      at += n;
    }
    byte[] trimmed = Bytes.trim(input);
    MessageLayout layout = scanner.layout();
    JsonRpcMessage expected = reference(trimmed);
    if (layout == null) {
      assertThat(expected == null || topLevelMembers(trimmed) > StreamingScanner.MAX_MEMBERS)
          .as("the full parse classified %s, the scanner gave no layout", show(input))
          .isTrue();
    } else {
      assertThat(expected).as("a layout for %s, which the full parse refuses", show(input)).isNotNull();
      assertThat(JsonRpcCodec.parse(trimmed, layout)).isEqualTo(expected);
    }
  }

  /** What the whole-message path makes of the bytes when they are one object; null otherwise. */
  private static JsonRpcMessage reference(byte[] trimmed) {
    if (trimmed.length == 0 || trimmed[0] != '{' || !Utf8.isValid(trimmed)) {
      return null;
    }
    try {
      return JsonRpcCodec.parse(trimmed);
    } catch (MalformedMessageException e) {
      return null;
    }
  }

  private static int topLevelMembers(byte[] json) {
    try (JsonParser p = Json.parser(json, 0, json.length)) {
      p.nextToken();
      int count = 0;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        count++;
        p.nextToken();
        p.skipChildren();
      }
      return count;
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private static byte[] join(List<byte[]> parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    parts.forEach(out::writeBytes);
    return out.toByteArray();
  }

  private static String show(byte[] input) {
    return new String(input, StandardCharsets.UTF_8).replace("\n", "\\n").replace("\r", "\\r");
  }
}
