package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.stdio.Log;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class ListenStreamsTest {

  @Test
  void theListFilterAsksOnlyForTheFamiliesAnnounced() {
    assertThat(ListenStreams.listFilter("{\"tools\":{\"listChanged\":true},\"prompts\":{},\"resources\":{\"listChanged\":false}}"))
        .isEqualTo("{\"toolsListChanged\":true}");
    assertThat(ListenStreams.listFilter("{\"logging\":{}}")).isNull();
    assertThat(ListenStreams.listFilter(null)).isNull();
  }

  @Test
  void subscriptionsAreBoundedAndARefusedOneChangesNothing() throws InterruptedException {
    List<String> filters = new CopyOnWriteArrayList<>();
    CountDownLatch never = new CountDownLatch(1);
    ListenStreams.Opener opener = (call, sink) -> {
      filters.add(new String(call.body(), StandardCharsets.UTF_8));
      never.await(); // a listen that stays open until the relay closes it (or the test ends)
      return Outcome.Failed.of(Outcome.Kind.NO_ANSWER, "closed");
    };
    ListenStreams streams = new ListenStreams(new Era2026Session(), opener, id -> {}, m -> {},
        Sleeper.REAL, new Log(new ByteArrayOutputStream(), Log.Level.OFF, new dev.mcpstdio.stdio.Redactor()));
    try {
      for (int i = 0; i < ListenStreams.MAX_SUBSCRIPTIONS; i++) {
        assertThat(streams.subscribe("db://" + i)).isTrue();
      }
      assertThat(streams.subscribe("db://0")).as("a URI already subscribed is no new subscription").isTrue();
      assertThat(streams.subscribe("db://one-too-many")).isFalse();
      assertThat(streams.isSubscribed("db://one-too-many")).isFalse();
      streams.unsubscribe("db://0");
      assertThat(streams.subscribe("db://one-too-many")).as("room again after an unsubscribe").isTrue();
    } finally {
      streams.stop();
      never.countDown();
    }
  }

  @Test
  void aNotificationForTheHostLosesOnlyTheSubscriptionId() throws Exception {
    JsonRpcMessage.Notification tagged = (JsonRpcMessage.Notification) JsonRpcCodec.parse(
        ("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":\"db://1\","
            + "\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":\"L1\",\"trace\":1}}}").getBytes(StandardCharsets.UTF_8));
    assertThat(new String(ListenStreams.forHost(tagged).bytes(), StandardCharsets.UTF_8))
        .isEqualTo("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":\"db://1\","
            + "\"_meta\":{\"trace\":1}}}");
    JsonRpcMessage.Notification only = (JsonRpcMessage.Notification) JsonRpcCodec.parse(
        ("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{"
            + "\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":7}}}").getBytes(StandardCharsets.UTF_8));
    assertThat(new String(ListenStreams.forHost(only).bytes(), StandardCharsets.UTF_8))
        .isEqualTo("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{}}");
  }
}
