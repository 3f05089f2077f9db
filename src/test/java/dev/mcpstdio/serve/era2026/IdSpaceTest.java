package dev.mcpstdio.serve.era2026;

import static dev.mcpstdio.serve.era2026.Msgs.json;
import static dev.mcpstdio.serve.era2026.Msgs.notification;
import static dev.mcpstdio.serve.era2026.Msgs.request;
import static dev.mcpstdio.serve.era2026.Msgs.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.serve.era2026.IdSpace.Progress;
import dev.mcpstdio.serve.era2026.IdSpace.Refused;
import dev.mcpstdio.serve.era2026.IdSpace.Remapped;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IdSpaceTest {

  private static Remapped remap(IdSpace space, String body) {
    return (Remapped) space.remap(request(body));
  }

  @Test
  void idsAndTokensGoIntoTheNamespaceAndComeBackVerbatim() {
    IdSpace space = new IdSpace();
    Remapped r = remap(space, "{'jsonrpc':'2.0','id':1.0e0,'method':'tools/call','params':{'name':'t','_meta':{'progressToken':'tok \\u00e9'}}}");
    String child = r.entry().childId().value();
    assertThat(child).matches("mcp-stdio/serve/[0-9]+");
    assertThat(text(r.request().bytes())).isEqualTo(json("{'jsonrpc':'2.0','id':'" + child
        + "','method':'tools/call','params':{'name':'t','_meta':{'progressToken':'" + child + "'}}}"));
    assertThat(r.entry().clientId().json()).isEqualTo("1.0e0");
    assertThat(r.entry().clientToken()).isEqualTo("\"tok \\u00e9\"");

    Progress p = space.progress(notification("{'jsonrpc':'2.0','method':'notifications/progress','params':{'progressToken':'"
        + child + "','progress':1,'total':3}}"));
    assertThat(p.entry()).isEqualTo(r.entry());
    assertThat(text(p.notification())).isEqualTo("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"tok \\u00e9\","
        + "\"progress\":1,\"total\":3}}");

    assertThat(space.lookup(r.entry().childId())).isEqualTo(r.entry());
    assertThat(space.release(r.entry().childId())).isEqualTo(r.entry());
    assertThat(space.release(r.entry().childId())).isNull();
    assertThat(space.progress(notification("{'jsonrpc':'2.0','method':'notifications/progress','params':{'progressToken':'" + child + "','progress':2}}")))
        .isNull();
  }

  @Test
  void numericTokensAndHugeIdsKeepTheirText() {
    IdSpace space = new IdSpace();
    String huge = "123456789012345678901234567890e-5";
    Remapped r = remap(space, "{'jsonrpc':'2.0','id':" + huge + ",'method':'x','params':{'_meta':{'progressToken':-0}}}");
    assertThat(r.entry().clientId().json()).isEqualTo(huge);
    assertThat(r.entry().clientToken()).isEqualTo("-0");
    Progress p = space.progress(notification("{'jsonrpc':'2.0','method':'notifications/progress','params':{'progress':1,'progressToken':'"
        + r.entry().childId().value() + "'}}"));
    assertThat(text(p.notification())).endsWith("\"progressToken\":-0}}");
    // a long string id too
    String longId = "x".repeat(100_000);
    assertThat(remap(space, "{'jsonrpc':'2.0','id':'" + longId + "','method':'x'}").entry().clientId().value()).isEqualTo(longId);
  }

  @Test
  void idsInTheNamespaceAreRefusedHoweverSpelled() {
    IdSpace space = new IdSpace();
    for (String id : new String[] {"'mcp-stdio/serve/1'", "'mcp-stdio/serve/'", "'mcp-stdio/serve/init/1'", "'mcp-stdio\\/serve\\/x'",
        "'\\u006dcp-stdio/serve/1'"}) {
      var out = space.remap(request("{'jsonrpc':'2.0','id':" + id + ",'method':'x'}"));
      assertThat(out).as(id).isInstanceOf(Refused.class);
      assertThat(((Refused) out).code()).isEqualTo(-32600);
      assertThat(((Refused) out).full()).isFalse();
    }
    // near misses are fine
    for (String id : new String[] {"'mcp-stdio/serv'", "'MCP-STDIO/serve/1'", "'mcp-stdio/relay/1'", "1"}) {
      assertThat(space.remap(request("{'jsonrpc':'2.0','id':" + id + ",'method':'x'}"))).as(id).isInstanceOf(Remapped.class);
    }
    assertThat(space.size()).isEqualTo(4);
  }

  @Test
  void tokensThatAreNotScalarsAreLeftAndNotTracked() {
    IdSpace space = new IdSpace();
    Remapped r = remap(space, "{'jsonrpc':'2.0','id':1,'method':'x','params':{'_meta':{'progressToken':{'a':1}}}}");
    assertThat(text(r.request().bytes())).contains("'progressToken':{'a':1}".replace('\'', '"'));
    assertThat(r.entry().clientToken()).isNull();
    // a progress notification naming the request's child id, but the client gave no token: dropped
    assertThat(space.progress(notification("{'jsonrpc':'2.0','method':'notifications/progress','params':{'progressToken':'"
        + r.entry().childId().value() + "'}}"))).isNull();
    // tokens not ours: dropped
    assertThat(space.progress(notification("{'jsonrpc':'2.0','method':'notifications/progress','params':{'progressToken':5}}"))).isNull();
    assertThat(space.progress(notification("{'jsonrpc':'2.0','method':'notifications/progress'}"))).isNull();
  }

  @Test
  void theTableIsBounded() {
    IdSpace space = new IdSpace(2);
    Remapped a = remap(space, "{'jsonrpc':'2.0','id':1,'method':'x'}");
    remap(space, "{'jsonrpc':'2.0','id':1,'method':'x'}");
    var third = space.remap(request("{'jsonrpc':'2.0','id':3,'method':'x'}"));
    assertThat(third).isInstanceOf(Refused.class);
    assertThat(((Refused) third).full()).isTrue();
    space.release(a.entry().childId());
    assertThat(space.remap(request("{'jsonrpc':'2.0','id':3,'method':'x'}"))).isInstanceOf(Remapped.class);
  }

  @Test
  void childIdsAreUniqueAcrossTables() {
    Set<JsonRpcId> seen = new HashSet<>();
    IdSpace one = new IdSpace();
    IdSpace two = new IdSpace();
    Request same = request("{'jsonrpc':'2.0','id':1,'method':'x'}");
    for (int i = 0; i < 100; i++) {
      assertThat(seen.add(((Remapped) one.remap(same)).entry().childId())).isTrue();
      assertThat(seen.add(((Remapped) two.remap(same)).entry().childId())).isTrue();
    }
  }
}
