package dev.mcpstdio.net;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketOption;
import java.net.StandardSocketOptions;

/**
 * TCP keepalive on an outbound socket: a relay holds event streams open for minutes and must
 * notice a peer that vanished without a FIN (a NAT or proxy dropped the flow). {@code
 * SO_KEEPALIVE} everywhere, and where the OS supports them an idle time of 60 s with probes every
 * 15 s, 4 probes: a dead peer is noticed after about two minutes.
 */
final class TcpKeepAlive {

  static final int IDLE_SECONDS = 60;
  static final int INTERVAL_SECONDS = 15;
  static final int PROBES = 4;

  private TcpKeepAlive() {}

  static void configure(Socket socket) throws IOException {
    socket.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
    trySet(socket, jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE, IDLE_SECONDS);
    trySet(socket, jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL, INTERVAL_SECONDS);
    trySet(socket, jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT, PROBES);
  }

  private static void trySet(Socket socket, SocketOption<Integer> option, int value) throws IOException {
    if (socket.supportedOptions().contains(option)) {
      socket.setOption(option, value);
    } // else the OS default applies; SO_KEEPALIVE alone still detects a dead peer, only later
  }
}
