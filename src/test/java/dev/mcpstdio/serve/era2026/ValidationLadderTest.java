package dev.mcpstdio.serve.era2026;

import static dev.mcpstdio.serve.era2026.Msgs.headers;
import static dev.mcpstdio.serve.era2026.Msgs.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.protocol.ParamHeaders;
import dev.mcpstdio.protocol.ParamHeaders.Annotation;
import dev.mcpstdio.serve.era2026.ValidationLadder.Pass;
import dev.mcpstdio.serve.era2026.ValidationLadder.Rejection;
import dev.mcpstdio.serve.era2026.ValidationLadder.Verdict;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ValidationLadderTest {

  private static final String V = "2026-07-28";

  private static Request call(String name, String arguments) {
    return request("{'jsonrpc':'2.0','id':'c1','method':'tools/call','params':{'name':" + name
        + ",'arguments':" + arguments + ",'_meta':" + Msgs.META + "}}");
  }

  private static Request list() {
    return request("{'jsonrpc':'2.0','id':7,'method':'tools/list','params':{'_meta':" + Msgs.META + "}}");
  }

  private static HeaderLines good(String method, String... more) {
    List<String> pairs = new ArrayList<>(List.of("MCP-Protocol-Version", V, "Mcp-Method", method));
    pairs.addAll(List.of(more));
    return headers(pairs.toArray(String[]::new));
  }

  private static Rejection rejected(Verdict v, int code) {
    assertThat(v).isInstanceOf(Rejection.class);
    Rejection r = (Rejection) v;
    assertThat(r.httpStatus()).isEqualTo(400);
    assertThat(r.code()).as(r.message()).isEqualTo(code);
    return r;
  }

  @Test
  void aWellFormedRequestPasses() {
    Verdict v = ValidationLadder.check(list(), good("tools/list"));
    assertThat(v).isInstanceOf(Pass.class);
    Pass p = (Pass) v;
    assertThat(p.version()).isEqualTo(V);
    assertThat(p.clientCapabilities().text(list().bytes())).isEqualTo("{}");
    assertThat(ValidationLadder.check(call("'get-weather'", "{}"), good("tools/call", "Mcp-Name", "get-weather"))).isInstanceOf(Pass.class);
  }

  @Test
  void rung0RepeatedHeadersWinOverEverything() {
    // even on a body with no _meta at all, and with names spelled in other cases
    Request bare = request("{'jsonrpc':'2.0','id':1,'method':'tools/list'}");
    for (String name : List.of("MCP-Protocol-Version", "Mcp-Method", "Mcp-Name")) {
      Verdict v = ValidationLadder.check(bare, headers(name, "a", name.toLowerCase(), "a"));
      assertThat(rejected(v, -32020).message()).contains(name).contains("repeated");
    }
  }

  @Test
  void rung1MetaMustBeThereAndWhole() {
    String[] params = {
      "", ",'params':{}", ",'params':[]", ",'params':{'_meta':null}", ",'params':{'_meta':[]}",
      ",'params':{'_meta':{'io.modelcontextprotocol/clientCapabilities':{}}}",
      ",'params':{'_meta':{'io.modelcontextprotocol/protocolVersion':'2026-07-28'}}",
      ",'params':{'_meta':{'io.modelcontextprotocol/protocolVersion':'2026-07-28','io.modelcontextprotocol/clientCapabilities':true}}",
    };
    for (String p : params) {
      Request r = request("{'jsonrpc':'2.0','id':1,'method':'tools/list'" + p + "}");
      // headers that would fail rung 2 too: rung 1 comes first
      rejected(ValidationLadder.check(r, HeaderLines.NONE), -32602);
    }
  }

  @Test
  void clientInfoIsOptionalAndOtherMetaKeysAreFine() {
    Request r = request("{'jsonrpc':'2.0','id':1,'method':'tools/list','params':{'_meta':{'progressToken':3,"
        + "'io.modelcontextprotocol/protocolVersion':'2026-07-28','io.modelcontextprotocol/clientCapabilities':{'sampling':{}},"
        + "'io.modelcontextprotocol/clientInfo':{'name':'x','version':'1'}}}}");
    assertThat(ValidationLadder.check(r, good("tools/list"))).isInstanceOf(Pass.class);
  }

  @Test
  void rung2aTheVersionHeader() {
    assertThat(rejected(ValidationLadder.check(list(), headers("Mcp-Method", "tools/list")), -32020).message())
        .contains("MCP-Protocol-Version").contains("missing");
    rejected(ValidationLadder.check(list(), headers("MCP-Protocol-Version", "2025-11-25", "Mcp-Method", "tools/list")), -32020);
    rejected(ValidationLadder.check(list(), headers("MCP-Protocol-Version", "2026-07-28x", "Mcp-Method", "tools/list")), -32020);
    // optional whitespace is not part of the value
    assertThat(ValidationLadder.check(list(), headers("mcp-protocol-version", " \t2026-07-28 ", "MCP-METHOD", "tools/list")))
        .isInstanceOf(Pass.class);
  }

  @Test
  void aVersionThatIsNotAStringNeverSlipsThrough() {
    Request nullVersion = request("{'jsonrpc':'2.0','id':1,'method':'tools/list','params':{'_meta':{"
        + "'io.modelcontextprotocol/protocolVersion':null,'io.modelcontextprotocol/clientCapabilities':{}}}}");
    rejected(ValidationLadder.check(nullVersion, good("tools/list")), -32020);
    rejected(ValidationLadder.check(nullVersion, headers("Mcp-Method", "tools/list")), -32020);
    // a header that spells the JSON text exactly passes rung 2a and meets rung 3
    assertThat(rejected(ValidationLadder.check(nullVersion, headers("MCP-Protocol-Version", "null", "Mcp-Method", "tools/list")), -32602)
        .message()).contains("not a string");
    Request numeric = request("{'jsonrpc':'2.0','id':1,'method':'tools/list','params':{'_meta':{"
        + "'io.modelcontextprotocol/protocolVersion':20260728,'io.modelcontextprotocol/clientCapabilities':{}}}}");
    rejected(ValidationLadder.check(numeric, headers("MCP-Protocol-Version", "20260728", "Mcp-Method", "tools/list")), -32602);
  }

  @Test
  void rung2bTheMethodHeaderIsComparedRaw() {
    rejected(ValidationLadder.check(list(), headers("MCP-Protocol-Version", V)), -32020);
    rejected(ValidationLadder.check(list(), good("prompts/list")), -32020);
    rejected(ValidationLadder.check(list(), good("TOOLS/LIST")), -32020);
    // no decoding: the sentinel form of the method is not the method
    rejected(ValidationLadder.check(list(), good("=?base64?dG9vbHMvbGlzdA==?=")), -32020);
  }

  @Test
  void rung2cTheNameHeader() {
    Request c = call("'get-weather'", "{}");
    assertThat(rejected(ValidationLadder.check(c, good("tools/call")), -32020).message()).contains("Mcp-Name").contains("missing");
    rejected(ValidationLadder.check(c, good("tools/call", "Mcp-Name", "wrong_tool_name")), -32020);
    rejected(ValidationLadder.check(c, good("tools/call", "Mcp-Name", "GET-WEATHER")), -32020);
    assertThat(ValidationLadder.check(c, good("tools/call", "Mcp-Name", "  get-weather  "))).isInstanceOf(Pass.class);
    // the encoded form decodes to the name
    assertThat(ValidationLadder.check(c, good("tools/call", "Mcp-Name", "=?base64?Z2V0LXdlYXRoZXI=?="))).isInstanceOf(Pass.class);
  }

  @Test
  void sentinelLikeLiteralsAndMalformedSentinels() {
    // a tool really named like the sentinel: a client must encode it; the literal decodes to something else
    Request odd = call("'=?base64?SGVsbG8=?='", "{}");
    rejected(ValidationLadder.check(odd, good("tools/call", "Mcp-Name", "=?base64?SGVsbG8=?=")), -32020);
    String encoded = dev.mcpstdio.protocol.McpName.encodeName("=?base64?SGVsbG8=?=");
    assertThat(ValidationLadder.check(odd, good("tools/call", "Mcp-Name", encoded))).isInstanceOf(Pass.class);
    // malformed payloads are mismatches, never crashes
    Request hello = call("'Hello'", "{}");
    for (String bad : List.of("=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?=", "=?base64?SGVsbG9=?=", "=?base64?/w==?=", "=?BASE64?SGVsbG8=?=")) {
      assertThat(rejected(ValidationLadder.check(hello, good("tools/call", "Mcp-Name", bad)), -32020).message()).doesNotContain(bad);
    }
    // raw non-ASCII or a control character in the header is malformed
    Request meteo = call("'météo'", "{}");
    rejected(ValidationLadder.check(meteo, good("tools/call", "Mcp-Name", "météo")), -32020);
    assertThat(ValidationLadder.check(meteo, good("tools/call", "Mcp-Name", "=?base64?bcOpdMOpbw==?="))).isInstanceOf(Pass.class);
  }

  @Test
  void nameBearingMethodsAndTheirMembers() {
    Request read = request("{'jsonrpc':'2.0','id':1,'method':'resources/read','params':{'uri':'file:///a b','_meta':" + Msgs.META + "}}");
    assertThat(ValidationLadder.check(read, good("resources/read", "Mcp-Name", "file:///a b"))).isInstanceOf(Pass.class);
    rejected(ValidationLadder.check(read, good("resources/read", "Mcp-Name", "file:///a")), -32020);
    Request prompt = request("{'jsonrpc':'2.0','id':1,'method':'prompts/get','params':{'name':'p','_meta':" + Msgs.META + "}}");
    rejected(ValidationLadder.check(prompt, good("prompts/get")), -32020);
    // other methods carry no Mcp-Name: one sent is ignored (unless repeated)
    assertThat(ValidationLadder.check(list(), good("tools/list", "Mcp-Name", "whatever"))).isInstanceOf(Pass.class);
    // the member absent from the body: nothing to compare (the child answers invalid params)
    Request noName = request("{'jsonrpc':'2.0','id':1,'method':'tools/call','params':{'_meta':" + Msgs.META + "}}");
    assertThat(ValidationLadder.check(noName, good("tools/call"))).isInstanceOf(Pass.class);
    // a name that is not a string cannot be mirrored
    rejected(ValidationLadder.check(call("5", "{}"), good("tools/call", "Mcp-Name", "5")), -32020);
  }

  @Test
  void rung4UnsupportedVersionWithData() {
    Request r = request("{'jsonrpc':'2.0','id':'x','method':'tools/list','params':{'_meta':{"
        + "'io.modelcontextprotocol/protocolVersion':'2027-01-01','io.modelcontextprotocol/clientCapabilities':{}}}}");
    Rejection rej = rejected(ValidationLadder.check(r, headers("MCP-Protocol-Version", "2027-01-01", "Mcp-Method", "tools/list")), -32022);
    assertThat(rej.dataJson()).isEqualTo("{\"supported\":[\"2026-07-28\"],\"requested\":\"2027-01-01\"}");
    assertThat(Msgs.text(rej.body(r.id()))).isEqualTo(
        "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"error\":{\"code\":-32022,\"message\":\"Unsupported protocol version\","
            + "\"data\":{\"supported\":[\"2026-07-28\"],\"requested\":\"2027-01-01\"}}}");
    // the header rungs come first (python-sdk v2 order)
    rejected(ValidationLadder.check(r, good("tools/list")), -32020);
  }

  @Test
  void theRejectionEchoesTheIdVerbatim() {
    Request r = request("{'jsonrpc':'2.0','id':1.50,'method':'tools/list'}");
    Rejection rej = rejected(ValidationLadder.check(r, HeaderLines.NONE), -32602);
    assertThat(Msgs.text(rej.body(r.id()))).startsWith("{\"jsonrpc\":\"2.0\",\"id\":1.50,");
  }

  @Test
  void messagesNeverEchoAValue() {
    String marker = "SECRET<script>";
    Request c = call("'t'", "{'region':'x'}");
    List<HeaderLines> hostile = List.of(
        headers("MCP-Protocol-Version", marker, "Mcp-Method", "tools/call"),
        good(marker),
        good("tools/call", "Mcp-Name", marker),
        good("tools/call", "Mcp-Name", "t", "Mcp-Param-Region", marker),
        good("tools/call", "Mcp-Name", "t", "Mcp-Param-Region", "x", "mcp-param-region", marker));
    ValidationLadder.ToolAnnotations tools = name -> List.of(new Annotation("Region", List.of("region"), ParamHeaders.Type.STRING));
    for (HeaderLines h : hostile) {
      Rejection rej = rejected(ValidationLadder.check(c, h, tools), -32020);
      assertThat(rej.message()).doesNotContain(marker);
      assertThat(Msgs.text(rej.body(c.id()))).doesNotContain("SECRET");
    }
  }

  // ---- rung 2d: Mcp-Param-* (conformance http-custom-header-server-validation) ----

  private static final ValidationLadder.ToolAnnotations REGION = name -> name.equals("t")
      ? List.of(new Annotation("Region", List.of("region"), ParamHeaders.Type.STRING),
          new Annotation("Count", List.of("count"), ParamHeaders.Type.INTEGER),
          new Annotation("Dry", List.of("opts", "dry"), ParamHeaders.Type.BOOLEAN))
      : null;

  private static Verdict param(String arguments, String... paramHeaders) {
    List<String> pairs = new ArrayList<>(List.of("Mcp-Name", "t"));
    pairs.addAll(List.of(paramHeaders));
    return ValidationLadder.check(call("'t'", arguments), good("tools/call", pairs.toArray(String[]::new)), REGION);
  }

  @Test
  void paramHeadersMatchingTheirArguments() {
    assertThat(param("{'region':'Hello'}", "Mcp-Param-Region", "=?base64?SGVsbG8=?=")).isInstanceOf(Pass.class);
    assertThat(param("{'region':'Hello'}", "mcp-param-region", "Hello")).isInstanceOf(Pass.class);
    // literals without the complete wrapper are literals
    assertThat(param("{'region':'SGVsbG8='}", "Mcp-Param-Region", "SGVsbG8=")).isInstanceOf(Pass.class);
    assertThat(param("{'region':'=?base64?SGVsbG8='}", "Mcp-Param-Region", "=?base64?SGVsbG8=")).isInstanceOf(Pass.class);
    // numbers numerically, booleans literally, nested paths
    assertThat(param("{'count':42.0}", "Mcp-Param-Count", "42")).isInstanceOf(Pass.class);
    assertThat(param("{'count':42}", "Mcp-Param-Count", "4.2e1")).isInstanceOf(Pass.class);
    assertThat(param("{'opts':{'dry':false}}", "Mcp-Param-Dry", "false")).isInstanceOf(Pass.class);
    // an optional argument absent or null: no header expected
    assertThat(param("{}")).isInstanceOf(Pass.class);
    assertThat(param("{'region':null,'opts':{}}")).isInstanceOf(Pass.class);
  }

  @Test
  void paramHeadersThatFail() {
    rejected(param("{'region':'Hello'}", "Mcp-Param-Region", "=?base64?SGVsbG8?="), -32020);
    rejected(param("{'region':'Hello'}", "Mcp-Param-Region", "=?base64?SGVs!!!bG8=?="), -32020);
    assertThat(rejected(param("{'region':'test-value'}"), -32020).message()).isEqualTo("Mcp-Param-Region header is missing");
    rejected(param("{'region':'a'}", "Mcp-Param-Region", "b"), -32020);
    rejected(param("{'region':'a'}", "Mcp-Param-Region", "A"), -32020);
    rejected(param("{'region':'a'}", "Mcp-Param-Region", "a", "MCP-PARAM-REGION", "a"), -32020);
    rejected(param("{}", "Mcp-Param-Region", "a"), -32020);
    rejected(param("{'count':42}", "Mcp-Param-Count", "42.5"), -32020);
    rejected(param("{'count':42}", "Mcp-Param-Count", "0x2a"), -32020);
    rejected(param("{'count':1e999}", "Mcp-Param-Count", "1e998"), -32020);
    rejected(param("{'count':1" + "0".repeat(200) + "}", "Mcp-Param-Count", "1" + "0".repeat(200)), -32020);
    rejected(param("{'opts':{'dry':true}}", "Mcp-Param-Dry", "TRUE"), -32020);
    rejected(param("{'region':{'a':1}}", "Mcp-Param-Region", "{\"a\":1}"), -32020);
    rejected(param("{'region':['a']}"), -32020);
  }

  @Test
  void paramRungSkippedWithoutAnnotations() {
    Request c = call("'other'", "{'region':'x'}");
    assertThat(ValidationLadder.check(c, good("tools/call", "Mcp-Name", "other"), REGION)).isInstanceOf(Pass.class);
    assertThat(ValidationLadder.check(call("'t'", "{'region':'x'}"), good("tools/call", "Mcp-Name", "t"))).isInstanceOf(Pass.class);
  }
}
