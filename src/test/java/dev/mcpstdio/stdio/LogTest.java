package dev.mcpstdio.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class LogTest {

  final ByteArrayOutputStream sink = new ByteArrayOutputStream();
  final Redactor redactor = new Redactor();

  Log log(Log.Level level) {
    return new Log(sink, level, redactor);
  }

  String out() {
    return sink.toString(StandardCharsets.UTF_8);
  }

  @Test
  void prefixesAndLabels() {
    Log log = log(Log.Level.DEBUG);
    log.debug("d");
    log.info("i");
    log.warn("w");
    log.error("e");
    assertThat(out())
        .isEqualTo(
            "[mcp-stdio] debug: d\n[mcp-stdio] i\n[mcp-stdio] warning: w\n[mcp-stdio] error: e\n");
    assertThat(log.isDebug()).isTrue();
  }

  @Test
  void thresholdInfo() {
    Log log = log(Log.Level.INFO);
    log.debug("hidden");
    log.info("shown");
    assertThat(out()).isEqualTo("[mcp-stdio] shown\n");
    assertThat(log.isDebug()).isFalse();
  }

  @Test
  void thresholdWarnAndError() {
    Log warn = log(Log.Level.WARN);
    warn.info("no");
    warn.warn("yes");
    warn.error("yes2");
    assertThat(out()).isEqualTo("[mcp-stdio] warning: yes\n[mcp-stdio] error: yes2\n");
    sink.reset();
    Log error = log(Log.Level.ERROR);
    error.warn("no");
    error.error("only");
    assertThat(out()).isEqualTo("[mcp-stdio] error: only\n");
  }

  @Test
  void thresholdOffSilencesEverything() {
    Log log = log(Log.Level.OFF);
    log.debug("a");
    log.info("b");
    log.warn("c");
    log.error("d");
    assertThat(sink.size()).isZero();
  }

  @Test
  void multiLineMessagesArePrefixedPerLine() {
    log(Log.Level.INFO).warn("first\nsecond\r\nthird\rfourth");
    assertThat(out())
        .isEqualTo(
            "[mcp-stdio] warning: first\n[mcp-stdio] warning: second\n"
                + "[mcp-stdio] warning: third\n[mcp-stdio] warning: fourth\n");
  }

  @Test
  void everyOutputLineStartsWithThePrefix() {
    log(Log.Level.DEBUG).error("a\n\nb\n");
    for (String line : out().split("\n", -1)) {
      if (!line.isEmpty()) {
        assertThat(line).startsWith("[mcp-stdio] error: ");
      }
    }
    assertThat(out()).endsWith("\n");
  }

  @Test
  void someoneElsesOutputIsMarkedAndCannotEndItsLine() {
    log(Log.Level.INFO).tagged("session 3f0c").output("child 42", "a\r\n[mcp-stdio] b\u2028c\u009bd\u202ee\tf");
    assertThat(out()).isEqualTo("[mcp-stdio] [session 3f0c] child 42 stderr> a\\x0d\\x0a[mcp-stdio] b\\u2028c\\x9bd"
        + "\\u202ee\tf\n");
  }

  @Test
  void outputIsAnInfoLine() {
    log(Log.Level.WARN).output("child 42", "hidden");
    assertThat(out()).isEmpty();
  }

  @Test
  void visibleLeavesOrdinaryTextAlone() {
    String text = "h\u00e9llo \u2603 tab\there \ud83d\ude00";
    assertThat(Log.visible(text)).isSameAs(text);
    assertThat(Log.visible("\u0000\u007f\u200f\u2066")).isEqualTo("\\x00\\x7f\\u200f\\u2066");
  }

  @Test
  void tagsNestInTheOrderTheyWereAdded() {
    log(Log.Level.INFO).tagged("session 3f0c").tagged("child").info("hello");
    assertThat(out()).isEqualTo("[mcp-stdio] [session 3f0c] [child] hello\n");
  }

  @Test
  void taggedAddsTagAfterPrefixAndSharesSink() {
    Log log = log(Log.Level.INFO);
    Log tagged = log.tagged("session 3f0c");
    tagged.warn("hello\nworld");
    log.info("plain");
    log.tagged("").info("untagged");
    assertThat(out())
        .isEqualTo(
            "[mcp-stdio] [session 3f0c] warning: hello\n[mcp-stdio] [session 3f0c] warning: world\n"
                + "[mcp-stdio] plain\n[mcp-stdio] untagged\n");
    assertThat(tagged.redactor()).isSameAs(redactor);
    assertThat(tagged.isDebug()).isFalse();
  }

  @Test
  void taggedKeepsThreshold() {
    Log tagged = log(Log.Level.ERROR).tagged("t");
    tagged.warn("no");
    tagged.error("yes");
    assertThat(out()).isEqualTo("[mcp-stdio] [t] error: yes\n");
  }

  @Test
  void scrubbingIsApplied() {
    redactor.addSecret("topsecret-value");
    Log log = log(Log.Level.DEBUG);
    log.info("POST https://u:pw@host/mcp?key=1 with Bearer abc and topsecret-value");
    log.debug("second line\nAuthorization: Bearer xyz");
    String out = out();
    assertThat(out).doesNotContain("pw", "key=1", "abc", "topsecret-value", "xyz");
    assertThat(out)
        .isEqualTo(
            "[mcp-stdio] POST https://host/mcp?<redacted> with Bearer <redacted> and <redacted>\n"
                + "[mcp-stdio] debug: second line\n[mcp-stdio] debug: Authorization: Bearer <redacted>\n");
  }

  @Test
  void nullMessage() {
    log(Log.Level.INFO).info(null);
    assertThat(out()).isEqualTo("[mcp-stdio] null\n");
  }

  @Test
  void utf8Output() {
    log(Log.Level.INFO).info("é 😀");
    assertThat(sink.toByteArray()).isEqualTo("[mcp-stdio] é 😀\n".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void concurrentMultiLineMessagesNeverInterleave() throws Exception {
    Log log = log(Log.Level.INFO);
    int threads = 16;
    int perThread = 200;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      Log tagged = log.tagged("t" + id);
      workers.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      start.await();
                    } catch (InterruptedException e) {
                      return;
                    }
                    for (int i = 0; i < perThread; i++) {
                      tagged.info("A" + id + "-" + i + "\nB" + id + "-" + i);
                    }
                  }));
    }
    start.countDown();
    for (Thread w : workers) {
      w.join();
    }
    String[] lines = out().split("\n");
    assertThat(lines).hasSize(threads * perThread * 2);
    for (int i = 0; i < lines.length; i += 2) {
      // line pairs of one message stay adjacent
      String a = lines[i];
      String b = lines[i + 1];
      String tag = a.substring(0, a.indexOf("] A") + 2);
      assertThat(b).startsWith(tag + "B");
      assertThat(a.substring(a.indexOf("] A") + 3)).isEqualTo(b.substring(b.indexOf("] B") + 3));
    }
  }

  @Test
  void aTrailingNewlineAddsNoEmptyLine() {
    log(Log.Level.INFO).info("one line\n");
    assertThat(out()).isEqualTo("[mcp-stdio] one line\n");
  }
}
