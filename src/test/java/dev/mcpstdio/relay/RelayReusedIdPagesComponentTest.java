package dev.mcpstdio.relay;

import static dev.mcpstdio.testing.FakeMcpServer.Reply;
import static dev.mcpstdio.testing.FakeMcpServer.Step;

import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.RelayHarness;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Lists under a reused id: the cancelled list and the one that reused its id page apart (their pages in flight are keyed by the id each travels under). */
class RelayReusedIdPagesComponentTest {

  private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}";
  private static final String CANCEL = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7}}";

  /**
   * List 7 is cancelled while its second page is in flight, and the host reuses 7 for a new list.
   * When the old list's paging ends, the new list's page in flight must still be what a cancel of 7
   * names upstream (the old list's end must not forget the new list's page).
   */
  @Test
  void theOldListsEndDoesNotForgetTheReusedListsPageInFlight() {
    CountDownLatch releaseOld = new CountDownLatch(1);
    CountDownLatch releaseNew = new CountDownLatch(1);
    AtomicInteger firstPages = new AtomicInteger();
    try (FakeMcpServer server = new FakeMcpServer(e -> {
          String id = e.rpcIdJson();
          if (!"tools/list".equals(e.rpcMethod())) {
            return FakeMcpServer.standard(e);
          }
          String cursor = e.param("cursor");
          if (cursor == null) {
            String next = firstPages.getAndIncrement() == 0 ? "old2" : "new2";
            return Reply.json(FakeMcpServer.result(id, "{\"tools\":[{\"name\":\"a\"}],\"nextCursor\":\"" + next + "\"}"));
          }
          CountDownLatch release = cursor.contains("old2") ? releaseOld : releaseNew;
          return Reply.sse(List.of(Step.await(release), Step.message(FakeMcpServer.result(id, "{\"tools\":[{\"name\":\"b\"}]}"))));
        });
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(LIST);
      Await.until("the old list's second page is asked for", () -> server.posts("tools/list").size() == 2);
      relay.send(CANCEL);
      Await.until("the cancel reached the server", () -> server.posts("notifications/cancelled").size() == 1);
      relay.send(LIST); // 7 reused while the cancelled list still pages: the new list goes under an alias
      Await.until("the new list's second page is asked for", () -> server.posts("tools/list").size() == 4);
      String newPage = server.posts("tools/list").get(3).rpcIdJson();
      releaseOld.countDown();
      Await.until("the old list's late answer dropped", () -> relay.log().contains("dropped a late response for cancelled id 7"));
      relay.send(CANCEL);
      try {
        Await.until("the second cancel names the new list's page in flight (" + newPage + ")",
            () -> server.posts("notifications/cancelled").stream().anyMatch(c -> c.text().contains(newPage)));
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + "; the cancels posted: "
            + server.posts("notifications/cancelled").stream().map(FakeMcpServer.Exchange::text).toList(), e);
      }
      releaseNew.countDown();
    }
  }
}
