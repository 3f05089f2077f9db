package dev.mcpstdio.relay;

import java.util.concurrent.atomic.LongAdder;

/**
 * What one relay did, for its operator at exit ({@code --metrics-file}, and one line on stderr):
 * the host's requests, how they were answered (the server's results, errors from the server or
 * the relay), the host's cancellations, attempts sent again, and sessions re-initialized after the
 * server lost one. Striped counters: counting costs an addition where the event already happens.
 */
public final class RelayCounts {

  final LongAdder requests = new LongAdder();
  final LongAdder results = new LongAdder();
  final LongAdder serverErrors = new LongAdder();
  final LongAdder relayErrors = new LongAdder();
  final LongAdder cancelled = new LongAdder();
  final LongAdder retries = new LongAdder();
  final LongAdder reinitializations = new LongAdder();

  /** A snapshot of the counts. */
  public record Snapshot(long requests, long results, long serverErrors, long relayErrors, long cancelled, long retries,
      long reinitializations) {

    /** One line for the log. */
    public String summary() {
      return requests + (requests == 1 ? " request: " : " requests: ") + results + " results and " + (serverErrors + relayErrors)
          + " errors (" + serverErrors + " from the server, " + relayErrors + " from the relay), " + cancelled + " cancelled; "
          + retries + (retries == 1 ? " retry, " : " retries, ") + reinitializations
          + (reinitializations == 1 ? " re-initialization" : " re-initializations");
    }

    /** The counts as one JSON object, with how long the relay ran and the upstream's origin. */
    public String json(long uptimeMillis, String upstreamOrigin, int exitCode) {
      return "{\"upstream\":" + dev.mcpstdio.jsonrpc.Json.quote(upstreamOrigin) + ",\"uptimeMs\":" + uptimeMillis
          + ",\"exitCode\":" + exitCode + ",\"requests\":" + requests + ",\"results\":" + results
          + ",\"serverErrors\":" + serverErrors + ",\"relayErrors\":" + relayErrors + ",\"cancelled\":" + cancelled
          + ",\"retries\":" + retries + ",\"reinitializations\":" + reinitializations + "}\n";
    }
  }

  public Snapshot snapshot() {
    return new Snapshot(requests.sum(), results.sum(), serverErrors.sum(), relayErrors.sum(), cancelled.sum(), retries.sum(),
        reinitializations.sum());
  }
}
