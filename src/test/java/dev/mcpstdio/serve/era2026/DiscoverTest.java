package dev.mcpstdio.serve.era2026;

import static dev.mcpstdio.serve.era2026.Msgs.json;
import static dev.mcpstdio.serve.era2026.Msgs.response;
import static dev.mcpstdio.serve.era2026.Msgs.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import org.junit.jupiter.api.Test;

class DiscoverTest {

  private static final JsonRpcId D1 = JsonRpcId.ofString("\"d1\"", "d1");

  private static String discover(String initResult) {
    Response init = response("{'jsonrpc':'2.0','id':'mcp-stdio/serve/init/1','result':" + initResult + "}");
    return text(Discover.response(D1, init.bytes(), init.result(), 60000));
  }

  @Test
  void fromAFullInitializeResult() {
    String out = discover("{'protocolVersion':'2025-06-18','capabilities':{'tools':{'listChanged':true},'resources':{'subscribe':true,'listChanged':true},"
        + "'logging':{}},'serverInfo':{'name':'wx','version':'2.0.1'},'instructions':'Weather tools.'}");
    assertThat(out).isEqualTo(json("{'jsonrpc':'2.0','id':'d1','result':{'resultType':'complete','supportedVersions':['2026-07-28'],"
        + "'capabilities':{'tools':{'listChanged':true},'resources':{'subscribe':true,'listChanged':true},'logging':{}},"
        + "'instructions':'Weather tools.','ttlMs':60000,'cacheScope':'private',"
        + "'_meta':{'io.modelcontextprotocol/serverInfo':{'name':'wx','version':'2.0.1'}}}}"));
  }

  @Test
  void subscribeOnlyWhenTrue() {
    assertThat(discover("{'capabilities':{'resources':{'subscribe':false,'listChanged':true}}}"))
        .contains(json("'capabilities':{'resources':{'listChanged':true}}"));
    assertThat(discover("{'capabilities':{'resources':{'subscribe':'yes'}}}")).contains(json("'capabilities':{'resources':{}}"));
    // a repeated subscribe: the last decides, as everywhere
    assertThat(discover("{'capabilities':{'resources':{'subscribe':true,'subscribe':0}}}")).contains(json("'capabilities':{'resources':{}}"));
    assertThat(discover("{'capabilities':{'resources':{'subscribe':false,'subscribe':true}}}"))
        .contains(json("'resources':{'subscribe':false,'subscribe':true}"));
  }

  @Test
  void oddCapabilitiesAndMissingFields() {
    assertThat(discover("{'capabilities':[1]}")).isEqualTo(json("{'jsonrpc':'2.0','id':'d1','result':{'resultType':'complete',"
        + "'supportedVersions':['2026-07-28'],'capabilities':{},'ttlMs':60000,'cacheScope':'private'}}"));
    assertThat(discover("{}")).contains(json("'capabilities':{}")).doesNotContain("_meta").doesNotContain("instructions");
    assertThat(discover("{'instructions':5,'serverInfo':'x'}")).doesNotContain("instructions").doesNotContain("_meta");
    assertThat(discover("null")).contains(json("'capabilities':{}"));
  }

  @Test
  void theChildsBytesAreKept() {
    String out = discover("{'capabilities':{ \"tools\" : {\"x\":1.50} },'instructions':\"caf\\u00e9\"}");
    assertThat(out).contains("\"capabilities\":{ \"tools\" : {\"x\":1.50} }").contains("\"instructions\":\"caf\\u00e9\"");
  }

  @Test
  void whatTheChildIs() {
    Response init = response("{'jsonrpc':'2.0','id':1,'result':{'capabilities':{'resources':{'subscribe':true}},'serverInfo':{'name':'n'}}}");
    assertThat(Discover.childSubscribes(init.bytes(), init.result())).isTrue();
    assertThat(Discover.serverInfo(init.bytes(), init.result())).isEqualTo(json("{'name':'n'}"));
    Response none = response("{'jsonrpc':'2.0','id':1,'result':{'capabilities':{'resources':{'subscribe':'true'}}}}");
    assertThat(Discover.childSubscribes(none.bytes(), none.result())).isFalse();
    assertThat(Discover.serverInfo(none.bytes(), none.result())).isNull();
    assertThatThrownBy(() -> Discover.response(D1, init.bytes(), init.result(), -1)).isInstanceOf(IllegalArgumentException.class);
  }
}
