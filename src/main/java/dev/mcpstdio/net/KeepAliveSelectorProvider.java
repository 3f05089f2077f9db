package dev.mcpstdio.net;

import java.io.IOException;
import java.net.ProtocolFamily;
import java.net.SocketOption;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;

/**
 * Turns on TCP keepalive for every outbound socket of the process.
 *
 * <p>The JDK's {@code HttpClient} offers no socket options, yet a relay holds SSE streams open for
 * minutes and must notice a peer that vanished without a FIN (a NAT or proxy dropped the flow).
 * The JDK's documented hook for channel creation is the {@code
 * java.nio.channels.spi.SelectorProvider} system property; this provider delegates everything to
 * the platform's default provider and only configures each new {@link SocketChannel}: {@code
 * SO_KEEPALIVE} everywhere, and where the OS supports them an idle time of 60 s with probes every
 * 15 s, 4 probes (a dead peer is noticed after about two minutes).
 *
 * <p>{@link #install()} must run before anything in the process opens a channel. The platform
 * provider is reached through {@code sun.nio.ch.DefaultSelectorProvider}, which the launcher
 * exports ({@code Add-Exports} in the jar manifest); where it is unavailable nothing is installed
 * and the reason is returned.
 */
public final class KeepAliveSelectorProvider extends SelectorProvider {

  static final int IDLE_SECONDS = 60;
  static final int INTERVAL_SECONDS = 15;
  static final int PROBES = 4;

  private static final String PROPERTY = "java.nio.channels.spi.SelectorProvider";

  private final SelectorProvider platform;

  /** Used by {@link SelectorProvider#provider()} through the system property. */
  public KeepAliveSelectorProvider() {
    this.platform = platformProvider();
  }

  /**
   * Makes this the process's selector provider.
   *
   * @return null on success, else why keepalive could not be enabled
   */
  public static String install() {
    try {
      platformProvider();
    } catch (RuntimeException e) {
      return "TCP keepalive unavailable on this JVM: " + e.getMessage();
    }
    System.setProperty(PROPERTY, KeepAliveSelectorProvider.class.getName());
    SelectorProvider installed = SelectorProvider.provider();
    if (!(installed instanceof KeepAliveSelectorProvider)) {
      return "TCP keepalive unavailable: a selector provider was already in use";
    }
    return null;
  }

  private static SelectorProvider platformProvider() {
    try {
      Class<?> type = Class.forName("sun.nio.ch.DefaultSelectorProvider");
      return (SelectorProvider) type.getMethod("get").invoke(null);
    } catch (ReflectiveOperationException | LinkageError e) {
      throw new IllegalStateException(e.toString(), e);
    }
  }

  /** Applies the keepalive options the channel supports. */
  public static void configure(SocketChannel channel) throws IOException {
    channel.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
    trySet(channel, jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE, IDLE_SECONDS);
    trySet(channel, jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL, INTERVAL_SECONDS);
    trySet(channel, jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT, PROBES);
  }

  private static void trySet(SocketChannel channel, SocketOption<Integer> option, int value) {
    if (channel.supportedOptions().contains(option)) {
      try {
        channel.setOption(option, value);
      } catch (IOException | UnsupportedOperationException ignored) {
        // The OS default applies; SO_KEEPALIVE alone still detects a dead peer, only later.
      }
    }
  }

  @Override
  public SocketChannel openSocketChannel() throws IOException {
    SocketChannel channel = platform.openSocketChannel();
    configure(channel);
    return channel;
  }

  @Override
  public SocketChannel openSocketChannel(ProtocolFamily family) throws IOException {
    SocketChannel channel = platform.openSocketChannel(family);
    if (family == StandardProtocolFamily.INET || family == StandardProtocolFamily.INET6) {
      configure(channel);
    }
    return channel;
  }

  @Override
  public DatagramChannel openDatagramChannel() throws IOException {
    return platform.openDatagramChannel();
  }

  @Override
  public DatagramChannel openDatagramChannel(ProtocolFamily family) throws IOException {
    return platform.openDatagramChannel(family);
  }

  @Override
  public Pipe openPipe() throws IOException {
    return platform.openPipe();
  }

  @Override
  public AbstractSelector openSelector() throws IOException {
    return platform.openSelector();
  }

  @Override
  public ServerSocketChannel openServerSocketChannel() throws IOException {
    return platform.openServerSocketChannel();
  }

  @Override
  public ServerSocketChannel openServerSocketChannel(ProtocolFamily family) throws IOException {
    return platform.openServerSocketChannel(family);
  }
}
