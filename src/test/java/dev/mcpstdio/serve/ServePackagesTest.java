package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * ARCHITECTURE.md section 2, serve's layering: the gateway ({@code serve}: Jetty wiring, the
 * handler tree, guards and routes) on top; the 2025-era session path ({@code serve.era2025}) and
 * the 2026-era path ({@code serve.era2026}) beside each other, never naming each other; the HTTP
 * pieces both use ({@code serve.http}: replies, event streams, bodies, byte budgets) at the bottom,
 * naming nothing of serve. Of the top package, an era may name only the configuration record
 * ({@code ServeConfig}); the 2026 era names none of it (its settings are its own). The embedded
 * authorization server ({@code serve.auth}) names only the HTTP pieces; the metrics ({@code
 * serve.metrics}) name nothing of serve (the gateway hands them what they read).
 */
class ServePackagesTest {

  private static final Path SERVE = Path.of("src", "main", "java", "dev", "mcpstdio", "serve");
  private static final Pattern NAME = Pattern.compile("\\bdev\\.mcpstdio\\.serve((?:\\.[a-z0-9]+)*)\\.([A-Z]\\w*)");

  @Test
  void theErasNeverNameEachOtherAndHttpAndAuthNameNothingOfServe() throws IOException {
    List<String> offending = new ArrayList<>();
    check("era2025", List.of("", ".era2025", ".http"), List.of("ServeConfig"), offending);
    check("era2026", List.of(".era2026", ".http"), List.of(), offending);
    check("http", List.of(".http"), List.of(), offending);
    check("auth", List.of(".auth", ".http"), List.of(), offending);
    check("metrics", List.of(".metrics"), List.of(), offending);
    assertThat(offending).isEmpty();
  }

  /** Every serve type named in {@code pkg}'s sources lies in one of {@code allowed} (sub-package suffixes; "" is serve itself, then only {@code topTypes}). */
  private static void check(String pkg, List<String> allowed, List<String> topTypes, List<String> offending) throws IOException {
    List<Path> sources;
    try (Stream<Path> files = Files.list(SERVE.resolve(pkg))) {
      sources = files.filter(p -> p.toString().endsWith(".java")).toList();
    }
    assertThat(sources).as("sources of serve.%s", pkg).isNotEmpty();
    for (Path source : sources) {
      Matcher m = NAME.matcher(Files.readString(source));
      while (m.find()) {
        String sub = m.group(1);
        boolean ok = allowed.contains(sub) && (!sub.isEmpty() || topTypes.contains(m.group(2)));
        if (!ok) {
          offending.add("serve." + pkg + "/" + source.getFileName() + " names dev.mcpstdio.serve" + sub + "." + m.group(2));
        }
      }
    }
  }
}
