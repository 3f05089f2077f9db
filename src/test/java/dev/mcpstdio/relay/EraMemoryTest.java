package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EraMemoryTest {

  @TempDir Path dir;

  @Test
  void remembersPerServerWithoutTheUrlAndKeepsTheMostRecentFew() throws IOException {
    Path file = dir.resolve("state/mcp-stdio/protocol-eras");
    EraMemory memory = new EraMemory(file);
    URI secret = URI.create("https://mcp.example.com/mcp?api_key=s3cr3t");
    memory.remember(secret, ProtocolEra.ERA_2026);
    assertThat(memory.recall(secret)).isEqualTo(ProtocolEra.ERA_2026);
    assertThat(memory.recall(URI.create("https://other.example.com/mcp"))).isNull();
    assertThat(Files.readString(file)).doesNotContain("s3cr3t").doesNotContain("example");
    for (int i = 0; i < EraMemory.MAX_SERVERS; i++) {
      memory.remember(URI.create("https://s" + i + ".example.com/mcp"), ProtocolEra.ERA_2025);
    }
    assertThat(Files.readAllLines(file)).hasSize(EraMemory.MAX_SERVERS);
    assertThat(memory.recall(secret)).as("the least recently found is dropped first").isNull();
    assertThat(memory.recall(URI.create("https://s255.example.com/mcp"))).isEqualTo(ProtocolEra.ERA_2025);
  }

  @Test
  void neverWritesThroughALinkAndTightensItsFolder() throws IOException {
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Path folder = dir.resolve("mcp-stdio");
    Files.createSymbolicLink(folder, elsewhere);
    EraMemory linkedFolder = new EraMemory(folder.resolve("protocol-eras"));
    assertThatThrownBy(() -> linkedFolder.remember(URI.create("https://a/mcp"), ProtocolEra.ERA_2026))
        .isInstanceOf(IOException.class);
    assertThat(elsewhere).isEmptyDirectory();

    Path own = Files.createDirectories(dir.resolve("own"));
    Files.setPosixFilePermissions(own, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path target = dir.resolve("target-file");
    Files.writeString(target, "not yours");
    Files.createSymbolicLink(own.resolve("protocol-eras"), target);
    EraMemory linkedFile = new EraMemory(own.resolve("protocol-eras"));
    assertThatThrownBy(() -> linkedFile.remember(URI.create("https://a/mcp"), ProtocolEra.ERA_2026))
        .isInstanceOf(IOException.class);
    assertThat(Files.readString(target)).isEqualTo("not yours");
    assertThat(Files.getPosixFilePermissions(own)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
  }

  @Test
  void aFileItCannotReadIsNoMemoryAtAll() throws IOException {
    Path file = Files.createDirectories(dir.resolve("m")).resolve("protocol-eras");
    Files.writeString(file, "garbage\nmodern\tshort\n" + "x".repeat(EraMemory.MAX_FILE_BYTES + 1));
    assertThat(new EraMemory(file).recall(URI.create("https://a/mcp"))).isNull();
    assertThat(EraMemory.defaultFile(Map.of("XDG_STATE_HOME", "/s"))).isEqualTo(Path.of("/s/mcp-stdio/protocol-eras"));
    assertThat(EraMemory.defaultFile(Map.of("HOME", "/h"))).isEqualTo(Path.of("/h/.local/state/mcp-stdio/protocol-eras"));
    assertThat(EraMemory.defaultFile(Map.of("XDG_STATE_HOME", "relative", "HOME", "/h")))
        .as("a relative XDG_STATE_HOME is ignored").isEqualTo(Path.of("/h/.local/state/mcp-stdio/protocol-eras"));
    assertThat(EraMemory.defaultFile(Map.of())).isNull();
  }
}
