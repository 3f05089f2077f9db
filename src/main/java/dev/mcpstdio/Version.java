package dev.mcpstdio;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** The build's version, stamped into a resource by Maven. */
public final class Version {

  private static final String VERSION = read();

  private Version() {}

  public static String get() {
    return VERSION;
  }

  private static String read() {
    try (InputStream in = Version.class.getResourceAsStream("version.txt")) {
      if (in == null) {
        return "dev";
      }
      String v = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      return v.isEmpty() || v.startsWith("$") ? "dev" : v;
    } catch (IOException e) {
      return "dev";
    }
  }
}
