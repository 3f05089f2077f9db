package dev.mcpstdio.serve.pinned;

import dev.mcpstdio.process.ChildSpec;
import java.util.List;

/**
 * A scripted child for the pinned tests: a {@code /bin/sh} program (the gateway spawns {@code sh}
 * itself, with the script as its argument; no shell runs the gateway's own argv) that reads one
 * line for each message it expects and writes fixed lines, so the gateway hears the same child on
 * every run. Lines must not contain a single quote.
 */
final class ChildScript {

  private final StringBuilder script = new StringBuilder();

  static ChildScript child() {
    return new ChildScript();
  }

  /** Waits for the next line from the gateway (one message). */
  ChildScript reads() {
    script.append("read -r line || exit 0; ");
    return this;
  }

  /** Writes {@code json} as one line on stdout. */
  ChildScript writes(String json) {
    if (json.indexOf('\'') >= 0) {
      throw new IllegalArgumentException("a scripted line cannot contain a single quote: " + json);
    }
    script.append("printf '%s\\n' '").append(json).append("'; ");
    return this;
  }

  /** Answers initialize (id 1) and takes notifications/initialized. */
  ChildScript initialized() {
    return reads().writes("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
        + "{\"tools\":{\"listChanged\":true},\"logging\":{}},\"serverInfo\":{\"name\":\"scripted\",\"version\":\"1\"}}}").reads();
  }

  /** Holds on until the gateway closes its stdin, reading whatever else comes. */
  ChildSpec thenHolds() {
    return spec(script + "cat >/dev/null");
  }

  /** Exits with {@code code} at this point. */
  ChildSpec thenExits(int code) {
    return spec(script + "exit " + code);
  }

  private static ChildSpec spec(String program) {
    return new ChildSpec(List.of("/bin/sh", "-c", program));
  }
}
