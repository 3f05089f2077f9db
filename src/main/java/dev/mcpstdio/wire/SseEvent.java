package dev.mcpstdio.wire;

/**
 * One dispatched server-sent event.
 *
 * @param type the event type; {@code "message"} when the stream named none
 * @param data the data lines joined with LF, as UTF-8 bytes
 * @param lastEventId the stream's last event id when this event was dispatched, or null if none
 */
public record SseEvent(String type, byte[] data, String lastEventId) {

  public boolean isMessage() {
    return "message".equals(type);
  }
}
