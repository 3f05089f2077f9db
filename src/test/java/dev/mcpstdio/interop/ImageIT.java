package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.JarProcess;
import dev.mcpstdio.testing.Jsons;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The OCI image Jib writes to {@code target/dist/mcp-stdio-VERSION-image.tar} (no Docker daemon
 * builds or runs it here): its config (serve as the entrypoint on 0.0.0.0:8080, a non-root user,
 * the health check, the labels), its layers (each one's digest as the config names it, the
 * distribution's tree under {@code /opt/mcp-stdio} owned by root and read-only to the user, the C
 * library the runtime needs, nothing of Jib's own {@code /app}), and, where this machine can (root,
 * {@code unshare}, {@code chroot}), the image run as a container engine runs it: its layers
 * unpacked into a root file system, the entrypoint as the image's user in fresh mount and network
 * namespaces with {@code /proc} and the devices an OCI runtime provides, the image's own health
 * check run beside it, and the image's own relay sending a host's calls through it.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ImageIT {

  /** The image's user: distroless's "nonroot", as in the Kubernetes manifests. */
  private static final String USER = "65532:65532";

  /**
   * Sets up what an OCI runtime gives a container and runs "$@" in it: loopback up in the new
   * network namespace, /proc, a /dev with the runtime spec's default devices, then chroot as the
   * image's user. Runs inside {@code unshare -m -n}, so nothing of it is seen outside.
   */
  private static final String CONTAINER = """
      set -e
      root=$1; user=$2; shift 2
      ip link set lo up
      mount -t proc proc "$root/proc"
      mount -t tmpfs -o mode=755 tmpfs "$root/dev"
      for d in null zero full random urandom tty; do : > "$root/dev/$d"; mount --bind "/dev/$d" "$root/dev/$d"; done
      exec chroot --userspec="$user" "$root" "$@"
      """;

  @TempDir
  Path tmp;

  private Path dist;
  private String version;
  private JsonNode config;
  private List<Path> layers;
  private Path rootfs;

  @BeforeEach
  void unpack() throws Exception {
    dist = Distribution.dir();
    version = Distribution.version(dist);
    Path image = dist.resolve("mcp-stdio-" + version + "-image.tar");
    Path dir = Files.createDirectories(tmp.resolve("image"));
    Distribution.Result untar = Distribution.run(List.of("tar", "-xf", image.toString(), "-C", dir.toString()));
    assertThat(untar.exitCode()).as(untar.output()).isZero();
    JsonNode manifest = Jsons.parse(Files.readString(dir.resolve("manifest.json")));
    assertThat(manifest.size()).isEqualTo(1);
    assertThat(manifest.path(0).path("RepoTags").path(0).asString()).isEqualTo("mcp-stdio:" + version);
    config = Jsons.parse(Files.readString(dir.resolve(manifest.path(0).path("Config").asString())));
    layers = new ArrayList<>();
    for (JsonNode layer : manifest.path(0).path("Layers")) {
      layers.add(dir.resolve(layer.asString()));
    }
    rootfs = Files.createDirectories(tmp.resolve("rootfs"));
    for (Path layer : layers) {
      // -p: the modes as the layer has them, whoever runs the test
      Distribution.Result extract = Distribution.run(List.of("tar", "-xpzf", layer.toString(), "-C", rootfs.toString()));
      assertThat(extract.exitCode()).as(extract.output()).isZero();
    }
  }

  @Test
  void theConfigServesOnAllInterfacesAsANonRootUserWithAHealthCheckAndLabels() {
    assertThat(config.path("os").asString()).isEqualTo("linux");
    assertThat(config.path("architecture").asString()).isEqualTo("amd64");
    JsonNode c = config.path("config");
    assertThat(strings(c.path("Entrypoint"))).containsExactly("/opt/mcp-stdio/runtime/bin/java",
        "@/opt/mcp-stdio/lib/serve.jvmargs", "-jar", "/opt/mcp-stdio/lib/mcp-stdio.jar", "serve", "--host", "0.0.0.0",
        "--port", "8080");
    assertThat(c.path("Cmd").isMissingNode() || c.path("Cmd").isNull() || c.path("Cmd").isEmpty())
        .as("no Cmd: with none, serve runs its built-in demo server; `docker run IMAGE -- CMD` names another").isTrue();
    assertThat(c.path("User").asString()).isEqualTo(USER);
    assertThat(c.path("WorkingDir").asString()).isEqualTo("/tmp");
    assertThat(c.path("ExposedPorts").has("8080/tcp")).isTrue();
    assertThat(strings(c.path("Env"))).contains("PATH=/opt/mcp-stdio/runtime/bin", "MALLOC_ARENA_MAX=2");

    JsonNode health = c.path("Healthcheck");
    List<String> test = strings(health.path("Test"));
    assertThat(test.get(0)).isEqualTo("CMD");
    assertThat(test.get(1)).isEqualTo("/opt/mcp-stdio/runtime/bin/java");
    assertThat(test.subList(test.size() - 2, test.size())).containsExactly("probe", "http://127.0.0.1:8080/healthz");
    assertThat(health.path("Interval").asLong()).isEqualTo(Duration.ofSeconds(30).toNanos());
    assertThat(health.path("Timeout").asLong()).isEqualTo(Duration.ofSeconds(10).toNanos());
    assertThat(health.path("StartPeriod").asLong()).isPositive();
    assertThat(health.path("Retries").asInt()).isEqualTo(3);

    JsonNode labels = c.path("Labels");
    assertThat(labels.path("org.opencontainers.image.version").asString()).isEqualTo(version);
    assertThat(labels.path("org.opencontainers.image.source").asString()).startsWith("https://");
    assertThat(labels.path("org.opencontainers.image.title").asString()).isEqualTo("mcp-stdio");
  }

  @Test
  void eachLayerIsTheOneTheConfigNamesAndTheTreeIsRootsAndReadOnlyToTheUser() throws Exception {
    List<String> diffIds = strings(config.path("rootfs").path("diff_ids"));
    assertThat(diffIds).hasSameSizeAs(layers);
    for (int i = 0; i < layers.size(); i++) {
      try (InputStream in = new GZIPInputStream(Files.newInputStream(layers.get(i)))) {
        assertThat("sha256:" + Distribution.sha256(in)).as("layer " + i + "'s diff id").isEqualTo(diffIds.get(i));
      }
    }

    Map<String, String> entries = new TreeMap<>(); // path -> "mode owner", from tar's own listing
    for (Path layer : layers) {
      Distribution.Result listing = Distribution.run(List.of("tar", "--numeric-owner", "-tvzf", layer.toString()));
      assertThat(listing.exitCode()).isZero();
      for (String line : listing.output().split("\n")) {
        String[] f = line.trim().split("\\s+");
        if (f.length >= 6 && !line.startsWith("tar:")) {
          entries.put(f[f.length - 1].replaceFirst("^\\./", "").replaceFirst("/$", ""), f[0] + " " + f[1]);
        }
      }
    }
    assertThat(entries.keySet()).as("Jib's own application layers are filtered out").noneMatch(p -> p.startsWith("app"));
    assertThat(entries).containsKeys("opt/mcp-stdio/runtime/bin/java", "opt/mcp-stdio/lib/mcp-stdio.jar",
        "opt/mcp-stdio/lib/mcp-stdio-serve.aot", "opt/mcp-stdio/lib/serve.jvmargs", "opt/mcp-stdio/lib/mcp-stdio.dist",
        "lib/x86_64-linux-gnu/libc.so.6", "lib64/ld-linux-x86-64.so.2", "etc/passwd", "etc/group");
    assertThat(entries.get("tmp")).startsWith("drwxrwxrwt");
    assertThat(entries.keySet()).as("no launcher script: the image has no shell to run it")
        .doesNotContain("opt/mcp-stdio/bin/mcp-stdio");
    assertThat(entries.keySet().stream().filter(p -> p.startsWith("lib/x86_64-linux-gnu/")).toList())
        .as("only the C library's own files in the system folder, none of the runtime's")
        .isNotEmpty().allMatch(p -> p.matches("lib/x86_64-linux-gnu/lib(c|m|dl|pthread|rt|resolv|nss_[a-z]+)\\.so\\.[0-9]+"));
    entries.forEach((path, modeOwner) -> {
      if (!path.equals("tmp") && !path.isEmpty() && !path.equals(".")) {
        assertThat(modeOwner).as(path + ": owned by root, not writable by others").endsWith(" 0/0")
            .matches("^.{8}-.*");
      }
    });

    Path opt = rootfs.resolve("opt/mcp-stdio");
    for (String program : List.of("runtime/bin/java", "runtime/lib/jspawnhelper")) {
      assertThat(Files.getPosixFilePermissions(opt.resolve(program))).as(program).contains(PosixFilePermission.OTHERS_EXECUTE);
    }
    assertThat(opt.resolve("runtime/bin/javac")).doesNotExist();
    assertThat(Files.readString(rootfs.resolve("etc/passwd"))).contains(":65532:65532:");
    assertThat(Files.readAllLines(opt.resolve("lib/serve.jvmargs")))
        .contains("-XX:AOTCache=/opt/mcp-stdio/lib/mcp-stdio-serve.aot").noneMatch(l -> l.contains("target/dist"));
  }

  @Test
  void runAsAnEngineRunsItServeIsHealthyAndTheImagesRelayGoesThroughIt() throws Exception {
    Assumptions.assumeTrue(Distribution.root(),
        "running the image in namespaces and a chroot needs root");
    for (String tool : List.of("/usr/bin/unshare", "/usr/bin/nsenter", "/usr/sbin/chroot")) {
      Assumptions.assumeTrue(Files.isExecutable(Path.of(tool)), tool + " is missing");
    }
    Files.createDirectories(rootfs.resolve("proc"));
    Files.createDirectories(rootfs.resolve("dev"));
    Path container = Files.writeString(tmp.resolve("container.sh"), CONTAINER);
    JsonNode c = config.path("config");

    List<String> command = new ArrayList<>(List.of("/usr/bin/unshare", "-m", "-n", "--propagation", "private",
        "/bin/sh", container.toString(), rootfs.toString(), c.path("User").asString()));
    command.addAll(strings(c.path("Entrypoint")));
    ProcessBuilder builder = new ProcessBuilder(command);
    Map<String, String> env = builder.environment();
    env.clear(); // the image's environment only, as an engine gives it
    for (String variable : strings(c.path("Env"))) {
      env.put(variable.substring(0, variable.indexOf('=')), variable.substring(variable.indexOf('=') + 1));
    }
    env.put("PATH", env.get("PATH") + ":/usr/sbin:/usr/bin:/sbin:/bin"); // for the set-up script; the image's own first

    try (JarProcess serve = JarProcess.spawn(builder)) {
      String line = serve.stderr.nextMatching(l -> l.contains("] serving "), Distribution.START);
      assertThat(line).contains("at http://0.0.0.0:8080/mcp");
      assertThat(Distribution.executable(serve)).isEqualTo(rootfs.resolve("opt/mcp-stdio/runtime/bin/java").toRealPath());
      assertThat(Distribution.maps(serve, "mcp-stdio-serve.aot")).as("the image's start-up cache mapped").isTrue();
      assertThat(Files.readAllLines(Path.of("/proc", Long.toString(serve.process.pid()), "status")))
          .as("serve's user").anyMatch(l -> l.matches("Uid:\\s+65532\\s+65532\\s+65532\\s+65532"));

      // the image's own health check, in the container's namespaces, as the engine runs it
      List<String> health = strings(c.path("Healthcheck").path("Test"));
      Distribution.Result probe = Distribution.run(inContainer(serve, health.subList(1, health.size())));
      assertThat(probe.exitCode()).as("the health check: " + probe.output() + "; serve: " + serve.log()).isZero();

      // the image's own relay, in the container, as a host would spawn it there
      try (JarProcess relay = JarProcess.spawn(inContainer(serve, List.of("/opt/mcp-stdio/runtime/bin/java",
          "-jar", "/opt/mcp-stdio/lib/mcp-stdio.jar", "http://127.0.0.1:8080/mcp")))) {
        Distribution.initializeDemo(relay, "image-it");
        Distribution.echo(relay, "inside the image");
        relay.closeStdin();
        assertThat(relay.awaitExit(Duration.ofSeconds(30))).as(relay.log()).isZero();
      }
      serve.terminate();
      assertThat(serve.awaitExit(Duration.ofSeconds(30))).as("serve's exit code after SIGTERM; " + serve.log()).isZero();
    }
  }

  /** {@code argv} run in the namespaces of the container {@code serve} runs in, as the image's user. */
  private ProcessBuilder inContainer(JarProcess serve, List<String> argv) {
    List<String> command = new ArrayList<>(List.of("/usr/bin/nsenter", "-t", Long.toString(serve.process.pid()), "-m", "-n",
        "/usr/sbin/chroot", "--userspec=" + USER, rootfs.toString()));
    command.addAll(argv);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().clear();
    builder.environment().put("PATH", "/opt/mcp-stdio/runtime/bin");
    return builder;
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asString()));
    return out;
  }
}
