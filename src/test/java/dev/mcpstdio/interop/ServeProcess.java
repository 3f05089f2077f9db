package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.JarProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code mcp-stdio serve} as a real process (the packaged jar) on a free port, and its MCP endpoint's URL. */
record ServeProcess(JarProcess process, String url) {

  /** Starts {@code serve --port 0} with {@code more} arguments and waits for its start line. */
  static ServeProcess start(String... more) {
    List<String> args = new ArrayList<>(List.of("serve", "--port", "0"));
    args.addAll(List.of(more));
    JarProcess serve = JarProcess.start(args);
    String line = serve.stderr.nextMatching(l -> l.contains("serving "), Duration.ofSeconds(30));
    Matcher m = Pattern.compile("at (http://127\\.0\\.0\\.1:\\d+/mcp) ").matcher(line);
    assertThat(m.find()).as("serve's start line: " + line).isTrue();
    return new ServeProcess(serve, m.group(1));
  }

  /** SIGTERM, and an exit code of 0 within 15 s. */
  void stop() {
    process.terminate();
    assertThat(process.awaitExit(Duration.ofSeconds(15))).as("serve's exit code after SIGTERM").isZero();
  }
}
