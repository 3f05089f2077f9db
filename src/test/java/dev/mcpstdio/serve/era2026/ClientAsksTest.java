package dev.mcpstdio.serve.era2026;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonSpan;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ClientAsksTest {

  private static ClientAsks of(String json) {
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    return ClientAsks.of(b, new JsonSpan(0, b.length));
  }

  @Test
  void readsTheThreeCapabilitiesAChildMayUseAndNothingElse() {
    assertThat(of("{\"sampling\":{\"tools\":{}},\"experimental\":{},\"elicitation\":{\"url\":{}}}"))
        .isEqualTo(new ClientAsks(true, true, false));
    assertThat(of("{}")).isEqualTo(new ClientAsks(false, false, false));
    assertThat(of("[1]")).as("not an object: declares none").isEqualTo(new ClientAsks(false, false, false));
    assertThat(ClientAsks.of(new byte[0], null)).isEqualTo(new ClientAsks(false, false, false));
  }

  @Test
  void aChildIsToldExactlyTheSetInThePlainForm() {
    assertThat(ClientAsks.ALL.capabilitiesJson()).isEqualTo("{\"elicitation\":{},\"sampling\":{},\"roots\":{}}");
    assertThat(new ClientAsks(false, true, false).capabilitiesJson()).isEqualTo("{\"sampling\":{}}");
    assertThat(new ClientAsks(false, false, false).capabilitiesJson()).isEqualTo("{}");
    assertThat(new ClientAsks(true, false, true)).hasToString("elicitation+roots");
  }

  @Test
  void declaresNamesEachQuestionsCapability() {
    ClientAsks roots = new ClientAsks(false, false, true);
    assertThat(ClientAsks.CAPABILITY_OF.get("roots/list")).isEqualTo("roots");
    assertThat(roots.declares("roots")).isTrue();
    assertThat(roots.declares("sampling")).isFalse();
    assertThat(roots.declares("tasks")).isFalse();
  }
}
