package dev.mcpstdio.host;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.wire.LineReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** The callback line parser: valid callbacks, everything else, and garbage that must never break it. */
class CallbackParserTest {

  private final CallbackParser parser = new CallbackParser();

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private CallbackParser.Parsed parse(String line) {
    return parser.parse(utf8(line));
  }

  @Test
  void aValidCallbackIsRecognisedWithItsFields() {
    CallbackParser.Parsed p = parse("__CALLBACK__{\"type\":\"confirm\",\"id\":\"c-1\",\"sessionId\":\"s\",\"message\":\"Delete?\","
        + "\"schema\":{\"type\":\"object\"}}");
    assertThat(p).isInstanceOf(CallbackParser.Parsed.Valid.class);
    Callback c = ((CallbackParser.Parsed.Valid) p).callback();
    assertThat(c.type()).isEqualTo("confirm");
    assertThat(c.id()).isEqualTo("c-1");
    assertThat(c.sessionId()).isEqualTo("s");
    assertThat(c.string("message")).isEqualTo("Delete?");
    assertThat(c.raw("schema")).isEqualTo("{\"type\":\"object\"}");
    assertThat(c.isNotification()).isFalse();
  }

  @Test
  void everyDefinedTypeNeedsItsFields() {
    assertThat(parse("__CALLBACK__{\"type\":\"auth_required\",\"id\":\"a\",\"sessionId\":\"s\",\"sourceSlug\":\"gh\","
        + "\"authUrl\":\"https://idp.example/login\"}")).isInstanceOf(CallbackParser.Parsed.Valid.class);
    assertThat(parse("__CALLBACK__{\"type\":\"auth_required\",\"id\":\"a\",\"sessionId\":\"s\",\"sourceSlug\":\"gh\","
        + "\"authUrl\":\"javascript:alert(1)\"}")).isInstanceOf(CallbackParser.Parsed.Rejected.class);
    assertThat(parse("__CALLBACK__{\"type\":\"auth_required\",\"id\":\"a\",\"sessionId\":\"s\",\"sourceSlug\":\"gh\"}"))
        .isInstanceOf(CallbackParser.Parsed.Rejected.class);
    assertThat(parse("__CALLBACK__{\"type\":\"plan_ready\",\"id\":\"p\",\"sessionId\":\"s\",\"planPath\":\"/w/plan.md\"}"))
        .isInstanceOf(CallbackParser.Parsed.Valid.class);
    assertThat(parse("__CALLBACK__{\"type\":\"notify\",\"id\":\"n\",\"sessionId\":\"s\",\"message\":\"hi\"}"))
        .isInstanceOfSatisfying(CallbackParser.Parsed.Valid.class, v -> assertThat(v.callback().isNotification()).isTrue());
    assertThat(parse("__CALLBACK__{\"type\":\"plan_ready\",\"id\":\"p\",\"sessionId\":\"s\",\"planPath\":7}"))
        .isInstanceOf(CallbackParser.Parsed.Rejected.class);
  }

  @Test
  void unknownTypesAreGenericCallbacks() {
    assertThat(parse("__CALLBACK__{\"type\":\"spawn_session\",\"id\":\"x\",\"sessionId\":\"s\",\"anything\":[1,2]}"))
        .isInstanceOfSatisfying(CallbackParser.Parsed.Valid.class, v -> assertThat(v.callback().type()).isEqualTo("spawn_session"));
  }

  @Test
  void linesWithoutThePrefixArePlainAndBrokenCallbacksAreRejectedWithAReason() {
    assertThat(parse("just a log line")).isInstanceOf(CallbackParser.Parsed.Plain.class);
    assertThat(parse(" __CALLBACK__{}")).isInstanceOf(CallbackParser.Parsed.Plain.class); // not at the start
    assertThat(parse("__CALLBACK_{}")).isInstanceOf(CallbackParser.Parsed.Plain.class);
    for (String bad : List.of("__CALLBACK__", "__CALLBACK__{", "__CALLBACK__[]", "__CALLBACK__\"x\"",
        "__CALLBACK__{\"type\":\"notify\"} trailing", "__CALLBACK__{\"id\":\"a\",\"sessionId\":\"s\"}",
        "__CALLBACK__{\"type\":\"notify\",\"id\":\"\",\"sessionId\":\"s\",\"message\":\"m\"}",
        "__CALLBACK__{\"type\":\"notify\",\"id\":\"has space\",\"sessionId\":\"s\",\"message\":\"m\"}",
        "__CALLBACK__{\"type\":\"notify\",\"id\":\"a/b\",\"sessionId\":\"s\",\"message\":\"m\"}",
        "__CALLBACK__{\"type\":\"notify\",\"id\":\"c%1\",\"sessionId\":\"s\",\"message\":\"m\"}",
        "__CALLBACK__{\"type\":\"notify\",\"id\":\"..\",\"sessionId\":\"s\",\"message\":\"m\"}",
        "__CALLBACK__{\"type\":\"notify\",\"id\":\"a\",\"message\":\"m\"}",
        "__CALLBACK__{\"type\":\"notify\",\"id\":\"a\",\"sessionId\":\"s\",\"message\":\"m\"}{}")) {
      assertThat(parse(bad)).as(bad).isInstanceOf(CallbackParser.Parsed.Rejected.class);
    }
    byte[] invalidUtf8 = utf8("__CALLBACK__{\"type\":\"notify\",\"id\":\"a\",\"sessionId\":\"s\",\"message\":\"\"}");
    invalidUtf8[invalidUtf8.length - 3] = (byte) 0xC3; // a lead byte with no continuation
    assertThat(parser.parse(invalidUtf8)).isInstanceOfSatisfying(CallbackParser.Parsed.Rejected.class,
        r -> assertThat(r.reason()).contains("UTF-8"));
  }

  @Test
  void aLineOverTheLimitIsRejected() {
    CallbackParser small = new CallbackParser(100);
    String big = "__CALLBACK__{\"type\":\"notify\",\"id\":\"a\",\"sessionId\":\"s\",\"message\":\"" + "x".repeat(200) + "\"}";
    assertThat(small.parse(utf8(big))).isInstanceOfSatisfying(CallbackParser.Parsed.Rejected.class,
        r -> assertThat(r.reason()).contains("over 100 bytes"));
  }

  @Property(tries = 500)
  void anyBytesGiveAnAnswerAndNeverAnException(@ForAll("lines") byte[] line) {
    CallbackParser.Parsed p = parser.parse(line);
    assertThat(p).isNotNull();
    if (!CallbackParser.hasPrefix(line)) {
      assertThat(p).isInstanceOf(CallbackParser.Parsed.Plain.class);
    }
  }

  @Provide
  Arbitrary<byte[]> lines() {
    Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(300);
    Arbitrary<byte[]> prefixed = random.map(tail -> {
      byte[] prefix = utf8(CallbackParser.PREFIX);
      byte[] line = new byte[prefix.length + tail.length];
      System.arraycopy(prefix, 0, line, 0, prefix.length);
      System.arraycopy(tail, 0, line, prefix.length, tail.length);
      return line;
    });
    return Arbitraries.oneOf(random, prefixed);
  }

  /** A stream that hands out at most {@code step} bytes per read: every split point, in turn. */
  private static InputStream trickle(byte[] bytes, int step) {
    return new ByteArrayInputStream(bytes) {
      @Override
      public synchronized int read(byte[] b, int off, int len) {
        return super.read(b, off, Math.min(len, step));
      }
    };
  }

  @Test
  void callbacksSurviveEverySplitPointCrlfAndNeighbouringGarbage() throws IOException {
    String stream = "starting up\r\n"
        + "__CALLBACK__{\"type\":\"plan_ready\",\"id\":\"p1\",\"sessionId\":\"s\",\"planPath\":\"/w/p.md\"}\r\n"
        + "__CALLBACK__{broken\n"
        + "é ordinary line with U+2028 \u2028 inside\n"
        + "__CALLBACK__{\"type\":\"notify\",\"id\":\"n1\",\"sessionId\":\"s\",\"message\":\"done\"}";
    byte[] bytes = utf8(stream);
    for (int step = 1; step <= 17; step++) {
      LineReader reader = new LineReader(trickle(bytes, step), CallbackParser.DEFAULT_MAX_LINE);
      List<String> kinds = new ArrayList<>();
      for (LineReader.Line line; (line = reader.next()) != null; ) {
        CallbackParser.Parsed p = parser.parse(((LineReader.Line.Text) line).bytes());
        kinds.add(switch (p) {
          case CallbackParser.Parsed.Plain plain -> "plain";
          case CallbackParser.Parsed.Valid valid -> valid.callback().id();
          case CallbackParser.Parsed.Rejected rejected -> "rejected";
        });
      }
      assertThat(kinds).as("split every " + step + " bytes").containsExactly("plain", "p1", "rejected", "plain", "n1");
    }
  }

  @Test
  void aHugeLineCostsNoMoreThanTheBoundAndLosesNothingAfterIt() throws IOException {
    byte[] huge = utf8("__CALLBACK__{\"type\":\"notify\",\"id\":\"a\",\"sessionId\":\"s\",\"message\":\"" + "x".repeat(1 << 20)
        + "\"}\n__CALLBACK__{\"type\":\"notify\",\"id\":\"after\",\"sessionId\":\"s\",\"message\":\"m\"}\n");
    LineReader reader = new LineReader(trickle(huge, 4096), CallbackParser.DEFAULT_MAX_LINE);
    assertThat(reader.next()).isInstanceOf(LineReader.Line.Oversized.class);
    LineReader.Line next = reader.next();
    assertThat(parser.parse(((LineReader.Line.Text) next).bytes()))
        .isInstanceOfSatisfying(CallbackParser.Parsed.Valid.class, v -> assertThat(v.callback().id()).isEqualTo("after"));
  }
}
