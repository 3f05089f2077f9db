package dev.mcpstdio.serve.era2026;

import static dev.mcpstdio.serve.era2026.Msgs.json;
import static dev.mcpstdio.serve.era2026.Msgs.response;
import static dev.mcpstdio.serve.era2026.Msgs.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.serve.era2026.ResultStamp.Stamped;
import org.junit.jupiter.api.Test;

class ResultStampTest {

  private static final ResultStamp STAMP = new ResultStamp(json("{'name':'child','version':'1'}"), 60000);
  private static final JsonRpcId CLIENT = JsonRpcId.ofString("\"c\\u0031\"", "c1");

  private static String stamp(String child, String method) {
    Stamped s = STAMP.apply(response(child), CLIENT, method, null);
    assertThat(s.httpStatus()).isEqualTo(200);
    return text(s.bytes());
  }

  @Test
  void aCallResultGetsResultTypeAndServerInfoButNoCachingHints() {
    assertThat(stamp("{'jsonrpc':'2.0','id':'mcp-stdio/serve/9','result':{'content':[],'isError':false}}", "tools/call"))
        .isEqualTo(json("{'jsonrpc':'2.0','id':\"c\\u0031\",'result':{'content':[],'isError':false,'resultType':'complete',"
            + "'_meta':{'io.modelcontextprotocol/serverInfo':{'name':'child','version':'1'}}}}"));
  }

  @Test
  void cacheableResultsGetTtlAndPrivateScope() {
    for (String method : new String[] {"tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read", "server/discover"}) {
      assertThat(stamp("{'jsonrpc':'2.0','id':1,'result':{}}", method)).as(method)
          .isEqualTo(json("{'jsonrpc':'2.0','id':\"c\\u0031\",'result':{'resultType':'complete','ttlMs':60000,'cacheScope':'private',"
              + "'_meta':{'io.modelcontextprotocol/serverInfo':{'name':'child','version':'1'}}}}"));
    }
    assertThat(stamp("{'jsonrpc':'2.0','id':1,'result':{}}", "prompts/get")).doesNotContain("ttlMs");
    assertThat(stamp("{'jsonrpc':'2.0','id':1,'result':{}}", "completion/complete")).doesNotContain("cacheScope");
  }

  @Test
  void onlyWhatIsAbsentIsStamped() {
    String child = "{'jsonrpc':'2.0','id':1,'result':{'resultType':'input_required','ttlMs':5,'cacheScope':'public',"
        + "'_meta':{'io.modelcontextprotocol/serverInfo':{'name':'own'}}}}";
    assertThat(stamp(child, "tools/list")).isEqualTo(json(child.replace("'id':1", "'id':\"c\\u0031\"")));
    // _meta present without serverInfo: it goes in, the other keys stay
    assertThat(stamp("{'jsonrpc':'2.0','id':1,'result':{'resultType':'complete','_meta':{'progressToken':3}}}", "tools/call"))
        .isEqualTo(json("{'jsonrpc':'2.0','id':\"c\\u0031\",'result':{'resultType':'complete','_meta':{'progressToken':3,"
            + "'io.modelcontextprotocol/serverInfo':{'name':'child','version':'1'}}}}"));
    // _meta that is not an object is left as it is
    assertThat(stamp("{'jsonrpc':'2.0','id':1,'result':{'_meta':7}}", "tools/call"))
        .isEqualTo(json("{'jsonrpc':'2.0','id':\"c\\u0031\",'result':{'_meta':7,'resultType':'complete'}}"));
  }

  @Test
  void theChildsBytesAreKeptVerbatim() {
    String child = "{ \"result\" : { \"text\" : \"caf\\u00e9 \u00e9\" , \"n\" : 1.50E+2 }\n, \"id\" : 12345678901234567890, \"jsonrpc\":\"2.0\" }";
    String out = text(STAMP.apply((Response) Msgs.parseRaw(child), CLIENT, "tools/call", null).bytes());
    assertThat(out).startsWith("{ \"result\" : { \"text\" : \"caf\\u00e9 \u00e9\" , \"n\" : 1.50E+2 ,\"resultType\"");
    assertThat(out).endsWith("}\n, \"id\" : \"c\\u0031\", \"jsonrpc\":\"2.0\" }");
  }

  @Test
  void errorsAreNeverStamped() {
    String child = "{'jsonrpc':'2.0','id':1,'error':{'code':-32602,'message':'Unknown tool'}}";
    assertThat(stamp(child, "tools/list")).isEqualTo(json(child.replace("'id':1", "'id':\"c\\u0031\"")));
    Stamped notFound = STAMP.apply(response("{'jsonrpc':'2.0','id':1,'error':{'code':-32601,'message':'no'}}"), CLIENT, "ping", null);
    assertThat(notFound.httpStatus()).isEqualTo(404);
    assertThat(text(notFound.bytes())).doesNotContain("resultType");
  }

  @Test
  void resourceNotFoundBecomesInvalidParamsWithTheUri() {
    String uri = "file:///nope \"x\"";
    Stamped s = STAMP.apply(response("{'jsonrpc':'2.0','id':1,'error':{'code':-32002,'message':'Resource not found'}}"), CLIENT, "resources/read", uri);
    assertThat(s.httpStatus()).isEqualTo(200);
    assertThat(text(s.bytes())).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":\"c\\u0031\",\"error\":{\"code\":-32602,\"message\":\"Resource not found\","
        + "\"data\":{\"uri\":\"file:///nope \\\"x\\\"\"}}}");
    // data kept and uri set; data that is no object replaced; the child's own uri replaced by the request's
    assertThat(text(STAMP.apply(response("{'jsonrpc':'2.0','id':1,'error':{'code':-32002,'message':'m','data':{'k':1}}}"), CLIENT, "resources/read", "u").bytes()))
        .isEqualTo(json("{'jsonrpc':'2.0','id':\"c\\u0031\",'error':{'code':-32602,'message':'m','data':{'k':1,'uri':'u'}}}"));
    assertThat(text(STAMP.apply(response("{'jsonrpc':'2.0','id':1,'error':{'code':-32002,'message':'m','data':'x'}}"), CLIENT, "resources/read", "u").bytes()))
        .isEqualTo(json("{'jsonrpc':'2.0','id':\"c\\u0031\",'error':{'code':-32602,'message':'m','data':{'uri':'u'}}}"));
    assertThat(text(STAMP.apply(response("{'jsonrpc':'2.0','id':1,'error':{'code':-32002,'message':'m','data':{'uri':'other'}}}"), CLIENT, "resources/read", "u").bytes()))
        .isEqualTo(json("{'jsonrpc':'2.0','id':\"c\\u0031\",'error':{'code':-32602,'message':'m','data':{'uri':'u'}}}"));
  }

  @Test
  void oddResultsAndCodesPassUnstamped() {
    assertThat(stamp("{'jsonrpc':'2.0','id':1,'result':null}", "tools/list")).isEqualTo(json("{'jsonrpc':'2.0','id':\"c\\u0031\",'result':null}"));
    assertThat(stamp("{'jsonrpc':'2.0','id':1,'result':[1]}", "tools/list")).isEqualTo(json("{'jsonrpc':'2.0','id':\"c\\u0031\",'result':[1]}"));
    assertThat(stamp("{'jsonrpc':'2.0','id':1,'error':{'code':'-32601','message':'x'}}", "x")).contains("'-32601'".replace('\'', '"'));
    assertThat(stamp("{'jsonrpc':'2.0','id':1,'error':{'code':-320020000000000,'message':'x'}}", "x")).contains("-320020000000000");
  }

  @Test
  void withoutServerInfoNoMetaIsAdded() {
    ResultStamp bare = new ResultStamp(null, 0);
    assertThat(text(bare.apply(response("{'jsonrpc':'2.0','id':1,'result':{}}"), JsonRpcId.ofNumber("7"), "tools/list", null).bytes()))
        .isEqualTo(json("{'jsonrpc':'2.0','id':7,'result':{'resultType':'complete','ttlMs':0,'cacheScope':'private'}}"));
    assertThatThrownBy(() -> new ResultStamp(null, -1)).isInstanceOf(IllegalArgumentException.class);
  }
}
