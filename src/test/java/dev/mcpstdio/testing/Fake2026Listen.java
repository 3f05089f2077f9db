package dev.mcpstdio.testing;

import static dev.mcpstdio.testing.Fake2026Json.SUBSCRIPTION_ID;

import dev.mcpstdio.testing.Fake2026Reply.Step;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One {@code subscriptions/listen} the fake server holds open: its request, the filter the client
 * asked for and the subset the server acknowledged, and the stream the test pushes into.
 *
 * <p>The stream starts with {@code notifications/subscriptions/acknowledged} (params.notifications
 * = {@link #honoured()}, tagged with the subscription id = the listen request's id); nothing is
 * sent for this subscription before it. Every notification pushed through the tagging methods
 * carries {@code _meta.io.modelcontextprotocol/subscriptionId}. The push methods named after a
 * notification type respect the acknowledged filter (and say whether they sent); {@link
 * #send(String)} writes any message as it is, to test a client against a misbehaving server.
 */
public final class Fake2026Listen {

  private final Fake2026Exchange exchange;
  private final String idJson;
  private final JsonNode filter;
  private final JsonNode honoured;
  private final String serverInfoJson;
  private final BlockingQueue<Step> queue = new LinkedBlockingQueue<>();
  private volatile boolean ended;

  Fake2026Listen(Fake2026Exchange exchange, JsonNode honoured, String serverInfoJson) {
    this.exchange = exchange;
    this.idJson = exchange.idJson();
    this.filter = exchange.params().path("notifications");
    this.honoured = honoured;
    this.serverInfoJson = serverInfoJson;
  }

  /** The reply that opens the stream: the ack, then whatever is pushed. */
  Fake2026Reply reply() {
    ObjectNode params = Fake2026Json.object();
    params.set("notifications", honoured);
    return Fake2026Reply.sse(Step.event(tagged("notifications/subscriptions/acknowledged", params)),
        Step.queue(queue));
  }

  public Fake2026Exchange exchange() {
    return exchange;
  }

  /** The listen request's id as written (also the subscription id). */
  public String idJson() {
    return idJson;
  }

  /** {@code params.notifications} as the client sent it (a missing node if absent). */
  public JsonNode filter() {
    return filter;
  }

  /** The subset acknowledged. */
  public JsonNode honoured() {
    return honoured;
  }

  /** True until the server ended it or the client closed it. */
  public boolean isOpen() {
    return !ended && !exchange.clientClosedEarly();
  }

  /** Whether the client closed this listen's stream. */
  public boolean clientClosed() {
    return exchange.clientClosedEarly();
  }

  public void awaitClientClosed(Duration timeout) {
    exchange.awaitClientClosed(timeout);
  }

  public void awaitClientClosed() {
    exchange.awaitClientClosed();
  }

  /** {@code notifications/tools/list_changed}, if acknowledged. */
  public boolean toolsListChanged() {
    return pushIf(honoured.path("toolsListChanged").asBoolean(false), "notifications/tools/list_changed", null);
  }

  /** {@code notifications/prompts/list_changed}, if acknowledged. */
  public boolean promptsListChanged() {
    return pushIf(honoured.path("promptsListChanged").asBoolean(false), "notifications/prompts/list_changed", null);
  }

  /** {@code notifications/resources/list_changed}, if acknowledged. */
  public boolean resourcesListChanged() {
    return pushIf(honoured.path("resourcesListChanged").asBoolean(false), "notifications/resources/list_changed", null);
  }

  /** {@code notifications/resources/updated {uri}}, if the uri is among the acknowledged subscriptions. */
  public boolean resourceUpdated(String uri) {
    boolean subscribed = false;
    for (JsonNode u : honoured.path("resourceSubscriptions")) {
      subscribed |= u.isString() && u.stringValue().equals(uri);
    }
    ObjectNode params = Fake2026Json.object();
    params.put("uri", uri);
    return pushIf(subscribed, "notifications/resources/updated", params);
  }

  /** Any notification, tagged with the subscription id, regardless of the filter. */
  public void notify(String method, String paramsJson) {
    push(Step.event(tagged(method, paramsJson == null ? Fake2026Json.object() : Fake2026Json.object(paramsJson))));
  }

  /** Any message or text, untagged and unchecked. */
  public void send(String json) {
    push(Step.event(json));
  }

  /** Any stream step (a comment, a pause...). */
  public void push(Step step) {
    queue.add(step);
  }

  /** Ends it with the spec's result {@code {resultType:complete, _meta:{subscriptionId}}}, then closes. */
  public void endWithResult() {
    ObjectNode result = Fake2026Json.object();
    result.put("resultType", "complete");
    ObjectNode meta = result.putObject("_meta");
    meta.set(SUBSCRIPTION_ID, Fake2026Json.parse(idJson));
    meta.set(Fake2026Json.SERVER_INFO, Fake2026Json.parse(serverInfoJson));
    end(Fake2026Json.result(idJson, result.toString()));
  }

  /** Ends it with {@code notifications/cancelled} naming the listen id, then closes (the other spec reading). */
  public void endWithCancel(String reason) {
    ObjectNode params = Fake2026Json.object();
    params.set("requestId", Fake2026Json.parse(idJson));
    if (reason != null) {
      params.put("reason", reason);
    }
    end(tagged("notifications/cancelled", params));
  }

  /** Ends it by closing the response cleanly with no final message. */
  public void endQuietly() {
    ended = true;
    queue.add(Step.end());
  }

  /** Cuts the connection under it (a transport failure). */
  public void cut() {
    ended = true;
    queue.add(Step.cut());
  }

  private void end(String last) {
    ended = true;
    queue.add(Step.event(last));
    queue.add(Step.end());
  }

  private boolean pushIf(boolean honouredType, String method, ObjectNode params) {
    if (!honouredType || !isOpen()) {
      return false;
    }
    push(Step.event(tagged(method, params == null ? Fake2026Json.object() : params)));
    return true;
  }

  private String tagged(String method, ObjectNode params) {
    ObjectNode meta = params.has("_meta") && params.get("_meta").isObject() ? (ObjectNode) params.get("_meta")
        : params.putObject("_meta");
    meta.set(SUBSCRIPTION_ID, Fake2026Json.parse(idJson));
    return Fake2026Json.notification(method, params.toString());
  }

  @Override
  public String toString() {
    return "listen " + idJson + " filter " + filter + " honoured " + honoured + (isOpen() ? " open" : " ended");
  }
}
