package dev.mcpstdio.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The W3C formats the gateway moves between {@code _meta} and HTTP headers: what crosses and what is dropped. */
class TraceContextTest {

  static final String VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  @Test
  void theW3cExampleAndALaterVersionWithMoreFieldsAreValid() {
    assertThat(TraceContext.isValidTraceparent(VALID)).isTrue();
    assertThat(TraceContext.isValidTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")).isTrue();
    assertThat(TraceContext.isValidTraceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-holds"))
        .as("a later version may append fields after a dash").isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", // version 00 has exactly four fields
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // version ff is forbidden
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01", // all-zero trace id
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", // all-zero parent id
      "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", // uppercase
      "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01", // dashes in the wrong places
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0", // short flags
      "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x", // a later version's extra needs a dash
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0\n"})
  void malformedTraceparentsAreRefused(String value) {
    assertThat(TraceContext.isValidTraceparent(value)).isFalse();
  }

  @Test
  void tracestateAndBaggageArePrintableListsWithinTheW3cCaps() {
    assertThat(TraceContext.isValidTracestate("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")).isTrue();
    assertThat(TraceContext.isValidTracestate("a=1,".repeat(32).substring(0, 4 * 32 - 1))).isTrue();
    assertThat(TraceContext.isValidTracestate("a=1,".repeat(33).substring(0, 4 * 33 - 1))).as("33 members").isFalse();
    assertThat(TraceContext.isValidTracestate("k=" + "v".repeat(511))).as("over 512 characters").isFalse();
    assertThat(TraceContext.isValidTracestate("k=v\r\nInjected: yes")).as("a header break").isFalse();
    assertThat(TraceContext.isValidTracestate(" ")).isFalse();
    assertThat(TraceContext.isValidTracestate(null)).isFalse();
    assertThat(TraceContext.isValidBaggage("userId=alice,serverNode=DF%2028,isProduction=false")).isTrue();
    assertThat(TraceContext.isValidBaggage("k=" + "v".repeat(8191))).isFalse();
    assertThat(TraceContext.isValidBaggage("k=é")).as("not ASCII").isFalse();
  }
}
