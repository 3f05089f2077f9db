package dev.mcpstdio.host;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Coverage-guided fuzzing of the {@code __CALLBACK__} line parser, which reads what a session's
 * child prints on stderr (docs/fuzzing.md). Seeds:
 * {@code src/test/resources/dev/mcpstdio/host/CallbackParserFuzzTestInputs/}.
 */
class CallbackParserFuzzTest {

  private static final byte[] PREFIX = CallbackParser.PREFIX.getBytes(StandardCharsets.US_ASCII);

  /**
   * Total and exact: any line gives {@code Plain} (no prefix), {@code Rejected} with a reason, or a
   * {@code Valid} callback whose id is URL-path safe and whose type and session are those its JSON
   * holds; a line over the bound is never valid; the line is kept as it was (nothing is lost).
   */
  @FuzzTest(maxDuration = "5m")
  void everyLineIsPlainRejectedOrAValidCallback(FuzzedDataProvider data) {
    int maxLine = data.consumeBoolean() ? data.consumeInt(0, 200) : CallbackParser.DEFAULT_MAX_LINE;
    boolean prefixed = data.consumeBoolean();
    byte[] rest = data.consumeRemainingAsBytes();
    byte[] line = prefixed ? concat(PREFIX, rest) : rest;

    CallbackParser.Parsed parsed = new CallbackParser(maxLine).parse(line);
    switch (parsed) {
      case CallbackParser.Parsed.Plain plain -> {
        assertThat(CallbackParser.hasPrefix(line)).isFalse();
        assertThat(plain.line()).isSameAs(line);
      }
      case CallbackParser.Parsed.Rejected rejected -> {
        assertThat(CallbackParser.hasPrefix(line)).isTrue();
        assertThat(rejected.line()).isSameAs(line);
        assertThat(rejected.reason()).isNotBlank();
      }
      case CallbackParser.Parsed.Valid valid -> {
        Callback c = valid.callback();
        assertThat(line.length).isLessThanOrEqualTo(maxLine);
        assertThat(c.id()).matches("[A-Za-z0-9._~-]{1," + CallbackParser.MAX_ID + "}").isNotIn(".", "..");
        assertThat(c.type()).isNotEmpty().isEqualTo(c.string("type"));
        assertThat(c.id()).isEqualTo(c.string("id"));
        assertThat(c.sessionId()).isNotNull().isEqualTo(c.string("sessionId"));
        assertThat(c.json()).isEqualTo(java.util.Arrays.copyOfRange(line, PREFIX.length, line.length));
        if (c.type().equals(Callback.AUTH_REQUIRED)) {
          assertThat(c.string("authUrl").toLowerCase(java.util.Locale.ROOT)).startsWith("http");
          assertThat(c.string("sourceSlug")).isNotNull();
        }
      }
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
