package dev.mcpstdio.serve.era2026;

import static dev.mcpstdio.serve.era2026.Msgs.json;
import static dev.mcpstdio.serve.era2026.Msgs.notification;
import static dev.mcpstdio.serve.era2026.Msgs.request;
import static dev.mcpstdio.serve.era2026.Msgs.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.serve.era2026.ListenFilter.Honoured;
import dev.mcpstdio.serve.era2026.ListenFilter.Invalid;
import dev.mcpstdio.serve.era2026.ListenFilter.Parsed;
import org.junit.jupiter.api.Test;

class ListenFilterTest {

  private static Parsed parse(String notifications, boolean subscribes) {
    String params = notifications == null ? "{}" : "{'notifications':" + notifications + "}";
    return ListenFilter.parse(request("{'jsonrpc':'2.0','id':'L1','method':'subscriptions/listen','params':" + params + "}"), subscribes);
  }

  private static ListenFilter filter(String notifications, boolean subscribes) {
    return ((Honoured) parse(notifications, subscribes)).filter();
  }

  @Test
  void absentIsEmptyAndNonObjectIsInvalid() {
    assertThat(filter(null, true)).isEqualTo(new ListenFilter(false, false, false, null));
    assertThat(filter(null, true).honouredJson()).isEqualTo("{}");
    assertThat(ListenFilter.parse(request("{'jsonrpc':'2.0','id':1,'method':'subscriptions/listen'}"), false)).isInstanceOf(Honoured.class);
    for (String bad : new String[] {"[]", "true", "'x'", "null"}) {
      Parsed p = parse(bad, true);
      assertThat(p).as(bad).isInstanceOf(Invalid.class);
      assertThat(((Invalid) p).code()).isEqualTo(-32602);
    }
  }

  @Test
  void onlyTrueBooleansAreHonoured() {
    ListenFilter f = filter("{'toolsListChanged':true,'promptsListChanged':false,'resourcesListChanged':'true','extra':true}", true);
    assertThat(f.honouredJson()).isEqualTo("{\"toolsListChanged\":true}");
    assertThat(filter("{'toolsListChanged':1,'promptsListChanged':true,'resourcesListChanged':true}", false).honouredJson())
        .isEqualTo("{\"promptsListChanged\":true,\"resourcesListChanged\":true}");
  }

  @Test
  void resourceSubscriptionsOnlyWhenTheChildSubscribes() {
    String asked = "{'resourceSubscriptions':['db://a','db://a',7,null,'db://b']}";
    assertThat(filter(asked, false).uris()).isNull();
    assertThat(filter(asked, false).honouredJson()).isEqualTo("{}");
    ListenFilter f = filter(asked, true);
    assertThat(f.uris()).containsExactly("db://a", "db://b");
    assertThat(f.honouredJson()).isEqualTo("{\"resourceSubscriptions\":[\"db://a\",\"db://b\"]}");
    assertThat(filter("{'resourceSubscriptions':[]}", true).honouredJson()).isEqualTo("{\"resourceSubscriptions\":[]}");
    assertThat(filter("{'resourceSubscriptions':'db://a'}", true).uris()).isNull();
  }

  @Test
  void urisAreBounded() {
    StringBuilder many = new StringBuilder("{'resourceSubscriptions':[");
    for (int i = 0; i < 1000; i++) {
      many.append(i == 0 ? "" : ",").append("'u").append(i % 300).append("'");
    }
    ListenFilter f = filter(many.append("]}").toString(), true);
    assertThat(f.uris()).hasSize(256);
    assertThat(f.uris().getFirst()).isEqualTo("u0");
    assertThat(f.uris().getLast()).isEqualTo("u255");
    String longUri = "u".repeat(ListenFilter.MAX_URI_LENGTH + 1);
    assertThat(filter("{'resourceSubscriptions':['" + longUri + "','ok']}", true).uris()).containsExactly("ok");
  }

  @Test
  void matchesWhatWasHonouredOnly() {
    ListenFilter f = filter("{'toolsListChanged':true,'resourceSubscriptions':['db://orders/42']}", true);
    assertThat(f.matches(notification("{'jsonrpc':'2.0','method':'notifications/tools/list_changed'}"))).isTrue();
    assertThat(f.matches(notification("{'jsonrpc':'2.0','method':'notifications/prompts/list_changed'}"))).isFalse();
    assertThat(f.matches(notification("{'jsonrpc':'2.0','method':'notifications/resources/list_changed'}"))).isFalse();
    assertThat(f.matches(notification("{'jsonrpc':'2.0','method':'notifications/resources/updated','params':{'uri':'db://orders/42'}}"))).isTrue();
    assertThat(f.matches(notification("{'jsonrpc':'2.0','method':'notifications/resources/updated','params':{'uri':'db://orders/4'}}"))).isFalse();
    assertThat(f.matches(notification("{'jsonrpc':'2.0','method':'notifications/resources/updated','params':{'uri':'DB://orders/42'}}"))).isFalse();
    assertThat(f.matches(notification("{'jsonrpc':'2.0','method':'notifications/resources/updated'}"))).isFalse();
    assertThat(f.matches(notification("{'jsonrpc':'2.0','method':'notifications/message','params':{'level':'info'}}"))).isFalse();
    assertThat(f.matches(notification("{'jsonrpc':'2.0','method':'notifications/progress','params':{}}"))).isFalse();
    // unsupported subscriptions: updates never match
    assertThat(filter("{'resourceSubscriptions':['db://orders/42']}", false)
        .matches(notification("{'jsonrpc':'2.0','method':'notifications/resources/updated','params':{'uri':'db://orders/42'}}"))).isFalse();
  }

  @Test
  void theAckNamesTheHonouredFilterAndTheIdVerbatim() {
    ListenFilter f = filter("{'toolsListChanged':true,'resourceSubscriptions':['db://orders/42']}", true);
    assertThat(text(f.ack(JsonRpcId.ofString("\"L\\u0031\"", "L1")))).isEqualTo(json("{'jsonrpc':'2.0','method':'notifications/subscriptions/acknowledged',"
        + "'params':{'notifications':{'toolsListChanged':true,'resourceSubscriptions':['db://orders/42']},"
        + "'_meta':{'io.modelcontextprotocol/subscriptionId':\"L\\u0031\"}}}"));
    assertThat(text(new ListenFilter(false, false, false, null).ack(JsonRpcId.ofNumber("1.0"))))
        .isEqualTo(json("{'jsonrpc':'2.0','method':'notifications/subscriptions/acknowledged','params':{'notifications':{},"
            + "'_meta':{'io.modelcontextprotocol/subscriptionId':1.0}}}"));
  }

  @Test
  void taggingKeepsTheChildsBytes() {
    JsonRpcId id = JsonRpcId.ofNumber("42");
    assertThat(text(ListenFilter.tag(notification("{'jsonrpc':'2.0','method':'notifications/tools/list_changed'}"), id)))
        .isEqualTo(json("{'jsonrpc':'2.0','method':'notifications/tools/list_changed','params':{'_meta':{'io.modelcontextprotocol/subscriptionId':42}}}"));
    assertThat(text(ListenFilter.tag(notification("{'jsonrpc':'2.0','method':'m','params':{}}"), id)))
        .isEqualTo(json("{'jsonrpc':'2.0','method':'m','params':{'_meta':{'io.modelcontextprotocol/subscriptionId':42}}}"));
    assertThat(text(ListenFilter.tag(notification("{'jsonrpc':'2.0','method':'m','params':{'uri':'u'}}"), id)))
        .isEqualTo(json("{'jsonrpc':'2.0','method':'m','params':{'uri':'u','_meta':{'io.modelcontextprotocol/subscriptionId':42}}}"));
    assertThat(text(ListenFilter.tag(notification("{'jsonrpc':'2.0','method':'m','params':{'_meta':{'k':'v'}}}"), id)))
        .isEqualTo(json("{'jsonrpc':'2.0','method':'m','params':{'_meta':{'k':'v','io.modelcontextprotocol/subscriptionId':42}}}"));
    assertThat(text(ListenFilter.tag(notification("{'jsonrpc':'2.0','method':'m','params':{'_meta':{'io.modelcontextprotocol/subscriptionId':'other'}}}"), id)))
        .isEqualTo(json("{'jsonrpc':'2.0','method':'m','params':{'_meta':{'io.modelcontextprotocol/subscriptionId':42}}}"));
    assertThat(text(ListenFilter.tag(notification("{'jsonrpc':'2.0','method':'m','params':{'_meta':5}}"), id)))
        .isEqualTo(json("{'jsonrpc':'2.0','method':'m','params':{'_meta':{'io.modelcontextprotocol/subscriptionId':42}}}"));
    assertThat(text(ListenFilter.tag(notification("{'jsonrpc':'2.0','method':'m','params':[1]}"), id)))
        .isEqualTo(json("{'jsonrpc':'2.0','method':'m','params':{'_meta':{'io.modelcontextprotocol/subscriptionId':42}}}"));
  }

  @Test
  void theTerminalResult() {
    assertThat(text(ListenFilter.terminal(JsonRpcId.ofString("\"L1\"", "L1"))))
        .isEqualTo(json("{'jsonrpc':'2.0','id':'L1','result':{'resultType':'complete','_meta':{'io.modelcontextprotocol/subscriptionId':'L1'}}}"));
  }
}
