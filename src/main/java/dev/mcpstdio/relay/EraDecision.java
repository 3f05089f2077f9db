package dev.mcpstdio.relay;

import dev.mcpstdio.protocol.EraProbeVerdict;
import dev.mcpstdio.stdio.Log;
import java.io.IOException;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Decides which era the relay speaks upstream, once, in one place ({@code --protocol-era}).
 *
 * <ul>
 *   <li>{@code legacy}: the 2025 era, no probe: the wire is exactly what it was before the 2026
 *       era existed.
 *   <li>{@code modern}: the 2026 era; the {@code server/discover} probe still runs, since what it
 *       answers is what the host's {@code initialize} is answered with.
 *   <li>{@code auto} (the default): a server remembered as a 2025-era one ({@link EraMemory}) is
 *       spoken to at once, without a probe; should it refuse the 2025 handshake, it is probed
 *       ({@link #recheck}). Any other server is probed as the relay starts (while the host is
 *       still starting up): a discover result, or an error the 2026 era reserves (-32020..-32099,
 *       in a 200 or in a 400), means the 2026 era; anything else (-32601 or another generic error,
 *       an empty body, a 404, a 5xx, an unrecovered 401/403, a transport failure) the 2025 era.
 *       What it found is remembered.
 * </ul>
 */
final class EraDecision {

  /** Sends one {@code server/discover}: the probe's outcome (its 401/403 recovered by the chain). */
  @FunctionalInterface
  interface Probe {
    Outcome discover() throws InterruptedException;
  }

  private final RelayConfig.EraSettings settings;
  private final URI url;
  private final Probe probe;
  private final Era2026Session session;
  private final Log log;
  private final CompletableFuture<ProtocolEra> era = new CompletableFuture<>();
  private volatile boolean remembered2025;

  EraDecision(RelayConfig.EraSettings settings, URI url, Probe probe, Era2026Session session, Log log) {
    this.settings = settings;
    this.url = url;
    this.probe = probe;
    this.session = session;
    this.log = log;
  }

  /** Starts deciding: at once where nothing needs asking, else on a thread of its own. */
  void start() {
    if (settings.choice() == ProtocolEra.Choice.LEGACY) {
      era.complete(ProtocolEra.ERA_2025);
      return;
    }
    if (settings.choice() == ProtocolEra.Choice.AUTO && recall() == ProtocolEra.ERA_2025) {
      remembered2025 = true;
      log.debug("protocol era: 2025 (remembered for this server)");
      era.complete(ProtocolEra.ERA_2025);
      return;
    }
    Thread.ofVirtual().name("mcp-stdio-era-probe").start(() -> {
      try {
        era.complete(decide());
      } catch (InterruptedException e) {
        era.complete(ProtocolEra.ERA_2025);
      } catch (RuntimeException | Error e) {
        log.warn("protocol-era probe failed (" + e + "); assuming the 2025 era");
        era.complete(ProtocolEra.ERA_2025);
      }
    });
  }

  /** The era decided, waiting for the probe if it is still out (bounded by its own timeouts). */
  ProtocolEra await() throws InterruptedException {
    try {
      return era.get();
    } catch (ExecutionException e) {
      return ProtocolEra.ERA_2025; // never: it completes normally
    }
  }

  /**
   * The 2025 handshake was refused by a server remembered as a 2025-era one: perhaps it moved to
   * the 2026 era. Probes it; true when it now speaks 2026 (the decision changes, and is
   * remembered). Only once, and only under {@code auto}.
   */
  synchronized boolean recheck() throws InterruptedException {
    if (!remembered2025) {
      return false;
    }
    remembered2025 = false;
    log.info("the server refused the 2025-era handshake; asking it whether it speaks 2026-07-28");
    if (decide() != ProtocolEra.ERA_2026) {
      return false;
    }
    era.obtrudeValue(ProtocolEra.ERA_2026);
    return true;
  }

  private ProtocolEra decide() throws InterruptedException {
    Outcome outcome = probe.discover();
    Verdict verdict = classify(outcome);
    String why = verdictOf(outcome).reason();
    if (verdict == Verdict.RESULT && outcome instanceof Outcome.Delivered d) {
      session.discovered(d.answer());
    }
    boolean modern = verdict != Verdict.LEGACY;
    if (settings.choice() == ProtocolEra.Choice.MODERN) {
      log.info("protocol era: 2026-07-28 (forced via --protocol-era)" + (modern ? "" : "; the server's answer to "
          + "server/discover was not a 2026-era one (" + why + ")"));
      return ProtocolEra.ERA_2026;
    }
    ProtocolEra found = modern ? ProtocolEra.ERA_2026 : ProtocolEra.ERA_2025;
    log.info("protocol era: " + (modern ? "2026-07-28" : "2025") + " (auto-detected)");
    log.debug("the server/discover probe: " + why);
    if (!(outcome instanceof Outcome.Failed)) {
      remember(found); // what the server said; a probe that got no answer proves nothing worth keeping
    }
    return found;
  }

  /** What a probe's outcome says. */
  enum Verdict {
    /** A discover result: the 2026 era, and what to tell the host. */
    RESULT,
    /** An error only the 2026 era has: the 2026 era, nothing learnt. */
    RESERVED_ERROR,
    /** Anything else. */
    LEGACY
  }

  /** The probe's outcome, classified by {@link EraProbeVerdict} (its 401/403 were the chain's to recover). */
  static Verdict classify(Outcome outcome) {
    return switch (verdictOf(outcome).kind()) {
      case ERA_2026_RESULT -> Verdict.RESULT;
      case ERA_2026_ERROR -> Verdict.RESERVED_ERROR;
      default -> Verdict.LEGACY;
    };
  }

  static EraProbeVerdict verdictOf(Outcome outcome) {
    if (outcome instanceof Outcome.Delivered d) {
      return EraProbeVerdict.classify(d.status(), d.answer() == null ? null : d.answer().bytes());
    } else if (outcome instanceof Outcome.Refused r) {
      return EraProbeVerdict.classify(r.status(), r.error() == null ? null : r.error().bytes());
    } else if (outcome instanceof Outcome.Accepted a) {
      return EraProbeVerdict.classify(a.status(), null);
    }
    return EraProbeVerdict.transportFailure(((Outcome.Failed) outcome).reason());
  }

  private ProtocolEra recall() {
    if (settings.memory() == null) {
      return null;
    }
    try {
      return new EraMemory(settings.memory()).recall(url);
    } catch (IOException | RuntimeException e) {
      log.debug("could not read the remembered protocol eras (" + e.getMessage() + ")");
      return null;
    }
  }

  private void remember(ProtocolEra found) {
    if (settings.memory() == null) {
      return;
    }
    try {
      new EraMemory(settings.memory()).remember(url, found);
    } catch (IOException | RuntimeException e) {
      log.debug("could not remember the protocol era (" + e.getMessage() + ")");
    }
  }
}
