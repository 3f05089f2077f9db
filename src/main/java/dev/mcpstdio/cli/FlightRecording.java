package dev.mcpstdio.cli;

import dev.mcpstdio.stdio.Log;
import java.lang.management.ManagementFactory;
import javax.management.ObjectName;

/**
 * A flight recording asked for through the launcher ({@code MCP_STDIO_JAVA_OPTS=-XX:StartFlightRecording=...}),
 * started here, inside the process, once it runs. A recording started from the JVM's command line
 * prints its "Started recording" lines on stdout, which is the wire, whatever {@code -Xlog} says;
 * so the launcher hands the options over as {@value #PROPERTY} instead, and they go to the same
 * diagnostic command {@code jcmd <pid> JFR.start} runs, whose answer is logged on stderr. The JVM's
 * management server, started for it, costs start-up time only when a recording is asked for.
 */
final class FlightRecording {

  /** The recording's options as {@code -XX:StartFlightRecording} takes them: {@code name=value} pairs, comma-separated. */
  static final String PROPERTY = "mcpstdio.jfr";

  private FlightRecording() {}

  static void startIfAsked(Log log) {
    String options = System.getProperty(PROPERTY);
    if (options == null) {
      return;
    }
    String[] arguments = options.isBlank() ? new String[0] : options.split(",");
    try {
      Object said = ManagementFactory.getPlatformMBeanServer().invoke(
          new ObjectName("com.sun.management:type=DiagnosticCommand"), "jfrStart",
          new Object[] {arguments}, new String[] {String[].class.getName()});
      log.info("flight recording: " + String.valueOf(said).strip().replaceAll("\\s*\\R+\\s*", " "));
    } catch (Exception | LinkageError e) {
      log.warn("cannot start the flight recording asked for (" + options + "): " + e.getMessage());
    }
  }
}
