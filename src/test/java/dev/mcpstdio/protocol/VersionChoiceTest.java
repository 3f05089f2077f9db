package dev.mcpstdio.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.jsonrpc.JsonSpan;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class VersionChoiceTest {

  private static final Set<String> GATEWAY = McpVersions.IMPLEMENTED_2026;
  private static final Set<String> WIDER = Set.of("2026-07-28", "2027-01-01", "2027-06-01");

  @Test
  void theRequestedVersionWinsWhenAdvertisedAndImplemented() {
    assertThat(VersionChoice.negotiate("2027-01-01", List.of("2027-06-01", "2027-01-01"), WIDER)).isEqualTo("2027-01-01");
    assertThat(VersionChoice.negotiate("2026-07-28", List.of("2026-07-28", "2025-11-25"), GATEWAY)).isEqualTo("2026-07-28");
  }

  @Test
  void elseTheNewestAdvertisedAndImplemented() {
    // a 2025 host's initialize version is never implemented in the 2026 era
    assertThat(VersionChoice.negotiate("2025-11-25", List.of("2025-11-25", "2026-07-28"), GATEWAY)).isEqualTo("2026-07-28");
    assertThat(VersionChoice.negotiate("2025-06-18", List.of("2026-07-28", "2027-06-01", "2027-01-01"), WIDER)).isEqualTo("2027-06-01");
    // advertised but not implemented is not eligible, however new
    assertThat(VersionChoice.negotiate(null, List.of("2026-07-28", "2099-01-01"), GATEWAY)).isEqualTo("2026-07-28");
    // requested and implemented, but the server advertises others: the server's list wins
    assertThat(VersionChoice.negotiate("2027-01-01", List.of("2026-07-28"), WIDER)).isEqualTo("2026-07-28");
  }

  @Test
  void elseTheRequestedVersionIfImplemented() {
    assertThat(VersionChoice.negotiate("2027-01-01", List.of("2025-11-25"), WIDER)).isEqualTo("2027-01-01");
    assertThat(VersionChoice.negotiate("2027-01-01", null, WIDER)).isEqualTo("2027-01-01");
  }

  @Test
  void elseTheNewestImplementedWhichForTheGatewayIs20260728() {
    assertThat(VersionChoice.negotiate(null, null, GATEWAY)).isEqualTo("2026-07-28");
    assertThat(VersionChoice.negotiate("2025-11-25", List.of("2025-11-25", "2025-06-18"), GATEWAY)).isEqualTo("2026-07-28");
    assertThat(VersionChoice.negotiate("junk", Arrays.asList(null, "junk"), GATEWAY)).isEqualTo("2026-07-28");
    assertThat(VersionChoice.negotiate(null, List.of(), WIDER)).isEqualTo("2027-06-01");
  }

  @Test
  void nothingImplementedIsAProgrammingError() {
    assertThatThrownBy(() -> VersionChoice.negotiate("2026-07-28", List.of("2026-07-28"), Set.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void versionsInReadsTheStringsOfAnArray() {
    byte[] b = "[\"2026-07-28\",7,null,\"2025-11-25\",{\"x\":1}]".getBytes(StandardCharsets.UTF_8);
    assertThat(VersionChoice.versionsIn(b, new JsonSpan(0, b.length))).containsExactly("2026-07-28", "2025-11-25");
    byte[] notArray = "\"2026-07-28\"".getBytes(StandardCharsets.UTF_8);
    assertThat(VersionChoice.versionsIn(notArray, new JsonSpan(0, notArray.length))).isEmpty();
    assertThat(VersionChoice.versionsIn(b, null)).isEmpty();
  }

  @Test
  void versionsInIsBounded() {
    StringBuilder json = new StringBuilder("[");
    for (int i = 0; i < 1000; i++) {
      json.append(i == 0 ? "" : ",").append("\"v").append(i).append('"');
    }
    byte[] b = json.append(']').toString().getBytes(StandardCharsets.UTF_8);
    List<String> versions = VersionChoice.versionsIn(b, new JsonSpan(0, b.length));
    assertThat(versions).hasSize(VersionChoice.MAX_VERSIONS).startsWith("v0", "v1");
  }
}
