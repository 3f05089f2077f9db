package dev.mcpstdio.oauth;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Sends the user's browser to a URL. The command in {@code BROWSER} wins when set (the usual
 * convention: colon-separated commands tried in turn, {@code %s} replaced by the URL or the URL
 * appended; tests and headless set-ups rely on it); else the desktop's opener ({@code open} on
 * macOS, {@code rundll32} on Windows, {@code xdg-open} elsewhere, which needs a display). Commands
 * run without a shell, their output discarded.
 */
@FunctionalInterface
public interface Browser {

  /** True when a browser was started (not that the user saw anything). */
  boolean open(String url);

  /** Whether a browser can be expected here at all (else the device flow is the way to sign in). */
  default boolean available() {
    return true;
  }

  static Browser system(Map<String, String> env) {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    boolean available = (env.get("BROWSER") != null && !env.get("BROWSER").isBlank()) || os.contains("mac")
        || os.contains("win") || env.containsKey("DISPLAY") || env.containsKey("WAYLAND_DISPLAY");
    Browser opener = url -> {
      String configured = env.get("BROWSER");
      List<List<String>> commands = new ArrayList<>();
      if (configured != null && !configured.isBlank()) {
        for (String command : configured.split(":")) {
          if (!command.isBlank()) {
            List<String> argv = new ArrayList<>(List.of(command.strip().split("\\s+")));
            argv.replaceAll(a -> a.replace("%s", url));
            if (argv.stream().noneMatch(a -> a.contains(url))) {
              argv.add(url);
            }
            commands.add(argv);
          }
        }
      } else {
        if (os.contains("mac")) {
          commands.add(List.of("open", url));
        } else if (os.contains("win")) {
          commands.add(List.of("rundll32", "url.dll,FileProtocolHandler", url));
        } else if (env.containsKey("DISPLAY") || env.containsKey("WAYLAND_DISPLAY")) {
          commands.add(List.of("xdg-open", url));
        }
      }
      for (List<String> argv : commands) { // started, never waited for: the JDK's process reaper reaps it
        try {
          new ProcessBuilder(argv).redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectError(ProcessBuilder.Redirect.DISCARD).redirectInput(ProcessBuilder.Redirect.PIPE).start()
              .getOutputStream().close();
          return true;
        } catch (IOException e) {
          // not installed: the next one
        }
      }
      return false;
    };
    return new Browser() {
      @Override
      public boolean open(String url) {
        return opener.open(url);
      }

      @Override
      public boolean available() {
        return available;
      }
    };
  }
}
