package dev.mcpstdio.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.Version;
import dev.mcpstdio.serve.ServeConfig;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.testing.NodePeers;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * {@code deploy/}: the Kubernetes manifests and the compose file agree with the image
 * (ImageIT asserts its config: port 8080, user 65532, the entrypoint below) and with serve: the
 * version's tag, the probe paths, a read-only root with a writable /tmp, the token from a secret,
 * and arguments that serve accepts when appended to the image's entrypoint.
 */
class DeployManifestsTest {

  /** The image's entrypoint after {@code serve} (pom.xml, asserted by ImageIT). */
  private static final List<String> ENTRYPOINT_OPTIONS = List.of("--host", "0.0.0.0", "--port", "8080");
  private static final ObjectMapper YAML = YAMLMapper.builder().build();
  private static final Path DEPLOY = NodePeers.basedir().resolve("deploy");

  private static List<JsonNode> documents(Path file) throws Exception {
    List<JsonNode> docs = new ArrayList<>();
    try (var values = YAML.readerFor(JsonNode.class).readValues(Files.readString(file))) {
      while (values.hasNextValue()) {
        docs.add((JsonNode) values.nextValue());
      }
    }
    return docs;
  }

  /** What serve makes of the image's entrypoint with {@code args} appended. */
  private static ServeConfig serveWith(JsonNode args) throws Exception {
    List<String> all = new ArrayList<>(ENTRYPOINT_OPTIONS);
    args.forEach(a -> all.add(a.asString()));
    Log log = new Log(new ByteArrayOutputStream(), Log.Level.INFO, new Redactor());
    ServeCommand.Parsed parsed = ServeCommand.parse(all.toArray(String[]::new),
        Map.of("MCP_STDIO_SERVE_TOKEN", "from-the-secret"), log, new PrintWriter(new StringWriter()));
    assertThat(parsed.exitNow()).as("serve " + all).isNull();
    return parsed.config();
  }

  @Test
  void theKubernetesDeploymentRunsTheImageReadOnlyAsItsUserWithBothProbesAndASecretToken() throws Exception {
    List<JsonNode> docs = documents(DEPLOY.resolve("kubernetes/mcp-stdio.yaml"));
    assertThat(docs).extracting(d -> d.path("kind").asString()).containsExactly("Deployment", "Service", "NetworkPolicy");
    JsonNode deployment = docs.get(0);
    JsonNode pod = deployment.path("spec").path("template");
    JsonNode labels = pod.path("metadata").path("labels");
    assertThat(deployment.path("spec").path("selector").path("matchLabels")).isEqualTo(labels);

    JsonNode podSecurity = pod.path("spec").path("securityContext");
    assertThat(podSecurity.path("runAsNonRoot").asBoolean()).isTrue();
    assertThat(podSecurity.path("runAsUser").asInt()).isEqualTo(65532);
    assertThat(pod.path("spec").path("automountServiceAccountToken").asBoolean(true)).isFalse();

    JsonNode container = pod.path("spec").path("containers").path(0);
    assertThat(container.path("image").asString()).isEqualTo("mcp-stdio:" + Version.get());
    assertThat(container.path("ports").path(0).path("name").asString()).isEqualTo("http");
    assertThat(container.path("ports").path(0).path("containerPort").asInt()).isEqualTo(8080);
    assertThat(container.path("readinessProbe").path("httpGet").path("path").asString()).isEqualTo("/readyz");
    assertThat(container.path("readinessProbe").path("httpGet").path("port").asString()).isEqualTo("http");
    assertThat(container.path("livenessProbe").path("httpGet").path("path").asString()).isEqualTo("/healthz");
    assertThat(container.path("livenessProbe").path("httpGet").path("port").asString()).isEqualTo("http");
    JsonNode security = container.path("securityContext");
    assertThat(security.path("readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(security.path("allowPrivilegeEscalation").asBoolean(true)).isFalse();
    assertThat(security.path("capabilities").path("drop").path(0).asString()).isEqualTo("ALL");
    assertThat(container.path("resources").path("limits").path("memory").isMissingNode()).isFalse();

    JsonNode tmp = container.path("volumeMounts").path(0);
    assertThat(tmp.path("mountPath").asString()).isEqualTo("/tmp");
    JsonNode volume = pod.path("spec").path("volumes").path(0);
    assertThat(volume.path("name").asString()).isEqualTo(tmp.path("name").asString());
    assertThat(volume.has("emptyDir")).isTrue();

    JsonNode token = container.path("env").path(0);
    assertThat(token.path("name").asString()).isEqualTo("MCP_STDIO_SERVE_TOKEN");
    assertThat(token.path("valueFrom").path("secretKeyRef").path("name").asString()).isNotBlank();
    assertThat(token.has("value")).as("no token in the manifest").isFalse();

    ServeConfig serve = serveWith(container.path("args"));
    assertThat(serve.host()).isEqualTo("0.0.0.0");
    assertThat(serve.port()).isEqualTo(8080);
    assertThat(serve.maxSessions()).isEqualTo(20);

    JsonNode service = docs.get(1);
    assertThat(service.path("spec").path("selector")).isEqualTo(labels);
    assertThat(service.path("spec").path("ports").path(0).path("targetPort").asString()).isEqualTo("http");
    assertThat(service.path("spec").path("sessionAffinity").asString()).as("2025-era sessions stay on their pod")
        .isEqualTo("ClientIP");
    assertThat(deployment.path("spec").path("replicas").asInt()).as("one full replica does not take the Service down")
        .isGreaterThanOrEqualTo(2);

    JsonNode policy = docs.get(2);
    assertThat(policy.path("spec").path("podSelector").path("matchLabels")).isEqualTo(labels);
    assertThat(policy.path("spec").path("policyTypes")).extracting(JsonNode::asString).containsExactly("Ingress", "Egress");
    assertThat(policy.path("spec").path("ingress").path(0).path("ports").path(0).path("port").asInt()).isEqualTo(8080);
  }

  @Test
  void theComposeFileRunsTheImageReadOnlyOnLoopbackWithTheTokenFromTheEnvironment() throws Exception {
    JsonNode service = documents(DEPLOY.resolve("compose.yaml")).get(0).path("services").path("mcp-stdio");
    assertThat(service.path("image").asString()).isEqualTo("mcp-stdio:" + Version.get());
    assertThat(service.path("ports").path(0).asString()).isEqualTo("127.0.0.1:8080:8080");
    assertThat(service.path("read_only").asBoolean()).isTrue();
    assertThat(service.path("tmpfs").path(0).asString()).isEqualTo("/tmp");
    assertThat(service.path("environment").path("MCP_STDIO_SERVE_TOKEN").asString()).startsWith("${MCP_STDIO_SERVE_TOKEN:?");
    assertThat(serveWith(service.path("command")).maxSessions()).isEqualTo(20);
  }
}
