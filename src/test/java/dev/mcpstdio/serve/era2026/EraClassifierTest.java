package dev.mcpstdio.serve.era2026;

import static dev.mcpstdio.serve.era2026.Msgs.headers;
import static dev.mcpstdio.serve.era2026.Msgs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.serve.era2026.EraClassifier.Era;
import dev.mcpstdio.serve.era2026.EraClassifier.Shape;
import org.junit.jupiter.api.Test;

class EraClassifierTest {

  @Test
  void serverDiscoverIs2026EvenWithoutMeta() {
    assertThat(EraClassifier.era(parse("{'jsonrpc':'2.0','id':1,'method':'server/discover'}"))).isEqualTo(Era.ERA_2026);
  }

  @Test
  void theVersionKeyInMetaIs2026WhateverItsValue() {
    for (String value : new String[] {"'2026-07-28'", "'1999-01-01'", "null", "42", "{}", "''"}) {
      String body = "{'jsonrpc':'2.0','id':1,'method':'tools/list','params':{'_meta':{'io.modelcontextprotocol/protocolVersion':" + value + "}}}";
      assertThat(EraClassifier.era(parse(body))).as(value).isEqualTo(Era.ERA_2026);
    }
  }

  @Test
  void anEscapedSpellingOfTheKeyCountsToo() {
    String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol\\/protocolVersion\":\"2026-07-28\"}}}";
    assertThat(EraClassifier.era(Msgs.parseRaw(body))).isEqualTo(Era.ERA_2026);
  }

  @Test
  void everythingElseIs2025() {
    String[] bodies = {
      "{'jsonrpc':'2.0','id':1,'method':'initialize','params':{'protocolVersion':'2025-11-25','capabilities':{}}}",
      "{'jsonrpc':'2.0','id':1,'method':'tools/list'}",
      "{'jsonrpc':'2.0','id':1,'method':'tools/list','params':{'_meta':{'progressToken':1}}}",
      // _meta not an object, the key elsewhere, the key nested one level too deep
      "{'jsonrpc':'2.0','id':1,'method':'tools/list','params':{'_meta':'io.modelcontextprotocol/protocolVersion'}}",
      "{'jsonrpc':'2.0','id':1,'method':'tools/list','params':{'io.modelcontextprotocol/protocolVersion':'2026-07-28'}}",
      "{'jsonrpc':'2.0','id':1,'method':'tools/list','params':{'_meta':{'x':{'io.modelcontextprotocol/protocolVersion':'2026-07-28'}}}}",
      "{'jsonrpc':'2.0','id':1,'method':'tools/list','params':[{'_meta':{'io.modelcontextprotocol/protocolVersion':'2026-07-28'}}]}",
      // a response, even one that carries the key; a batch of 2026-looking requests; invalid shapes
      "{'jsonrpc':'2.0','id':1,'result':{'_meta':{'io.modelcontextprotocol/protocolVersion':'2026-07-28'}}}",
      "[{'jsonrpc':'2.0','id':1,'method':'server/discover'}]",
      "{'jsonrpc':'2.0','id':null,'method':'server/discover'}",
      "{'jsonrpc':'2.0','id':{},'method':'server/discover'}",
      "{'jsonrpc':'2.0','id':1,'method':7}",
      "'server/discover'",
      // a method that only looks like discover
      "{'jsonrpc':'2.0','id':1,'method':'Server/Discover'}",
      "{'jsonrpc':'2.0','id':1,'method':'server/discover '}",
    };
    for (String body : bodies) {
      assertThat(EraClassifier.era(parse(body))).as(body).isEqualTo(Era.ERA_2025);
    }
  }

  @Test
  void aDiscoverNotificationIsNotEvidence() {
    // the evidence for discover is the request; a notification needs the _meta key
    assertThat(EraClassifier.era(parse("{'jsonrpc':'2.0','method':'server/discover'}"))).isEqualTo(Era.ERA_2025);
    assertThat(EraClassifier.era(parse("{'jsonrpc':'2.0','method':'notifications/cancelled','params':{'requestId':1,'_meta':"
        + Msgs.META + "}}"))).isEqualTo(Era.ERA_2026);
  }

  @Test
  void headersNeverDecide() {
    var body = parse("{'jsonrpc':'2.0','id':1,'method':'tools/list'}");
    var c = EraClassifier.classify(body, headers("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list"));
    assertThat(c.era()).isEqualTo(Era.ERA_2025);
    assertThat(c.hint().claims2026()).isTrue();
    assertThat(c.headersDisagree()).isTrue();

    var modern = parse("{'jsonrpc':'2.0','id':1,'method':'tools/list','params':{'_meta':" + Msgs.META + "}}");
    var none = EraClassifier.classify(modern, HeaderLines.NONE);
    assertThat(none.era()).isEqualTo(Era.ERA_2026);
    assertThat(none.headersDisagree()).isTrue();
    var agreeing = EraClassifier.classify(modern, headers("mcp-protocol-version", " 2026-07-28 "));
    assertThat(agreeing.hint().protocolVersion()).isEqualTo("2026-07-28");
    assertThat(agreeing.headersDisagree()).isFalse();
  }

  @Test
  void theHintOfA2025Client() {
    assertThat(EraClassifier.hint(headers("MCP-Protocol-Version", "2025-11-25")).claims2026()).isFalse();
    assertThat(EraClassifier.hint(headers("MCP-Protocol-Version", "2025-06-18")).claims2026()).isFalse();
    assertThat(EraClassifier.hint(HeaderLines.NONE).claims2026()).isFalse();
    // a repeated version header claims nothing
    var repeated = EraClassifier.hint(headers("MCP-Protocol-Version", "2026-07-28", "mcp-protocol-version", "2026-07-28"));
    assertThat(repeated.protocolVersion()).isNull();
  }

  @Test
  void shapes() {
    assertThat(EraClassifier.classify(parse("{'jsonrpc':'2.0','id':1,'method':'x'}"), HeaderLines.NONE).shape()).isEqualTo(Shape.REQUEST);
    // the v2 client's notifications/cancelled comes without Mcp-Method: still a notification, answered 202
    assertThat(EraClassifier.classify(parse("{'jsonrpc':'2.0','method':'notifications/cancelled','params':{'requestId':1}}"),
        HeaderLines.NONE).shape()).isEqualTo(Shape.NOTIFICATION);
    assertThat(EraClassifier.classify(parse("{'jsonrpc':'2.0','id':1,'result':{}}"), HeaderLines.NONE).shape()).isEqualTo(Shape.OTHER);
    assertThat(EraClassifier.classify(parse("[]"), HeaderLines.NONE).shape()).isEqualTo(Shape.OTHER);
  }
}
