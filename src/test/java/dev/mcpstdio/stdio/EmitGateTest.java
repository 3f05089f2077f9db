package dev.mcpstdio.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EmitGateTest {

  final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
  final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
  final StdoutWire wire = new StdoutWire(stdout);
  final Log log = new Log(stderr, Log.Level.INFO, new Redactor());
  final List<JsonRpcMessage> seen = new ArrayList<>();

  static JsonRpcMessage msg(String json) throws Exception {
    return JsonRpcCodec.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void admittedMessagesAreWrittenVerbatim() throws Exception {
    EmitGate gate = new EmitGate(wire, m -> { seen.add(m); return EmitGate.Admission.pass(m); }, log);
    JsonRpcMessage m = msg("{\"jsonrpc\":\"2.0\",\"id\":1.0,\"result\":{\"x\":\"\\u0041\"}}");
    assertThat(gate.relay(m)).isTrue();
    assertThat(stdout.toString(StandardCharsets.UTF_8)).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1.0,\"result\":{\"x\":\"\\u0041\"}}\n");
    assertThat(seen).containsExactly(m);
    assertThat(stderr.size()).isZero();
  }

  @Test
  void droppedMessagesAreLoggedNotWritten() throws Exception {
    EmitGate gate = new EmitGate(wire, m -> EmitGate.Admission.drop("dropped late response for id 1"), log);
    assertThat(gate.relay(msg("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"))).isFalse();
    assertThat(stdout.size()).isZero();
    assertThat(stderr.toString(StandardCharsets.UTF_8)).isEqualTo("[mcp-stdio] dropped late response for id 1\n");
  }

  @Test
  void ownMessagesBypassTheFilter() {
    EmitGate gate = new EmitGate(wire, m -> { throw new AssertionError("filter must not see own messages"); }, log);
    assertThat(gate.own("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32000,\"message\":\"x\"}}".getBytes(StandardCharsets.UTF_8)))
        .isTrue();
    assertThat(stdout.toString(StandardCharsets.UTF_8)).endsWith("}\n");
  }

  @Test
  void brokenWireReportsFalse() throws Exception {
    StdoutWire broken =
        new StdoutWire(
            new OutputStream() {
              @Override
              public void write(int b) throws IOException {
                throw new IOException("closed");
              }

              @Override
              public void write(byte[] b, int o, int l) throws IOException {
                throw new IOException("closed");
              }
            });
    EmitGate gate = new EmitGate(broken, EmitGate.Admission::pass, log);
    assertThat(gate.relay(msg("{\"jsonrpc\":\"2.0\",\"method\":\"n\"}"))).isFalse();
    assertThat(gate.own("{}".getBytes(StandardCharsets.UTF_8))).isFalse();
    assertThat(broken.isBroken()).isTrue();
  }
}
