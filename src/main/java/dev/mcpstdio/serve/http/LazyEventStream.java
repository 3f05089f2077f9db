package dev.mcpstdio.serve.http;

import java.io.IOException;

/**
 * An {@link EventStream} opened by its first write, so that a reply with nothing to stream before
 * its answer can still be sent as JSON, with a status of its own.
 */
public final class LazyEventStream {

  private final EventStream stream;
  private boolean opened;

  public LazyEventStream(EventStream stream) {
    this.stream = stream;
  }

  /** Whether the stream's status and headers were sent (a JSON reply is then too late). */
  public boolean opened() {
    return opened;
  }

  public void message(byte[] json) throws IOException {
    open();
    stream.message(json);
  }

  public void keepAlive() throws IOException {
    open();
    stream.keepAlive();
  }

  /** The last event, ending the stream (which must be open). */
  public void last(byte[] json) throws IOException {
    stream.last(json, null);
  }

  private void open() throws IOException {
    if (!opened) {
      opened = true;
      stream.open();
    }
  }
}
