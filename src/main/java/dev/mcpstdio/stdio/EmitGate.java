package dev.mcpstdio.stdio;

import dev.mcpstdio.jsonrpc.JsonRpcMessage;

/**
 * The gate between upstream traffic and the wire.
 *
 * <p>Messages relayed from the upstream server pass the {@link Filter} first, which may hold back
 * a response the host must not see (a late answer to a cancelled request, or a second answer to an
 * id that was already answered). The gateway's own messages (its error responses) are written
 * through {@link #own} and never filtered: a host must never wait forever for an answer the
 * gateway decided to give.
 */
public final class EmitGate {

  /** Decides whether an upstream message may reach the host. */
  @FunctionalInterface
  public interface Filter {
    Admission admit(JsonRpcMessage message);
  }

  /**
   * A filter's verdict: the message to write (the one given, or a rewrite of it, such as a batch
   * without the members that must not reach the host), or null to write nothing; and a note for
   * the log when something was held back.
   */
  public record Admission(JsonRpcMessage message, String note) {

    public static Admission pass(JsonRpcMessage message) {
      return new Admission(message, null);
    }

    public static Admission drop(String reason) {
      return new Admission(null, reason);
    }
  }

  private final StdoutWire wire;
  private final Filter filter;
  private final Log log;

  public EmitGate(StdoutWire wire, Filter filter, Log log) {
    this.wire = wire;
    this.filter = filter;
    this.log = log;
  }

  /** Relays a message from the upstream server, unless the filter holds it back. */
  public boolean relay(JsonRpcMessage message) {
    Admission admission = filter.admit(message);
    if (admission.note() != null) {
      log.info(admission.note());
    }
    return admission.message() != null && wire.write(admission.message().bytes());
  }

  /** Writes a message the gateway produced itself. */
  public boolean own(byte[] message) {
    return wire.write(message);
  }
}
