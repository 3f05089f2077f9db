package dev.mcpstdio.serve;

import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The listening connector, with a bounded back-off when accepting fails ({@link AcceptBackoff}).
 * Jetty's own handling logs a stack trace and sleeps one second on every failure, so a process out
 * of file descriptors wrote a trace a second for as long as that lasted.
 */
final class GatewayConnector extends ServerConnector {

  private final AcceptBackoff backoff;

  GatewayConnector(Server server, AcceptBackoff backoff, ConnectionFactory... factories) {
    super(server, factories);
    this.backoff = backoff;
  }

  @Override
  public void accept(int acceptorID) throws IOException {
    super.accept(acceptorID);
    backoff.succeeded();
  }

  @Override
  protected boolean handleAcceptFailure(Throwable failure) {
    if (!isOpen()) {
      return false; // closed by the gateway's shutdown: this acceptor is done
    }
    if (!isRunning() || failure instanceof InterruptedException || failure instanceof ClosedByInterruptException) {
      return super.handleAcceptFailure(failure); // stopping: Jetty's own quiet handling
    }
    try {
      Thread.sleep(backoff.failed(failure));
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
