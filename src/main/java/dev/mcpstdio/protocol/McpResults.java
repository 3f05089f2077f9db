package dev.mcpstdio.protocol;

/**
 * Member names and values of 2026-era results (spec.md 5.4, 5.12): every result carries {@link
 * #RESULT_TYPE}; the cacheable ones ({@link McpMethods#CACHEABLE}) carry {@link #TTL_MS} and
 * {@link #CACHE_SCOPE}.
 */
public final class McpResults {

  /** Every result's kind; absent means {@link #COMPLETE}. */
  public static final String RESULT_TYPE = "resultType";

  /** A final result. */
  public static final String COMPLETE = "complete";

  /** An MRTR answer asking the client for input ({@code inputRequests}, {@code requestState}). */
  public static final String INPUT_REQUIRED = "input_required";

  /** Freshness in milliseconds, an integer at least 0. */
  public static final String TTL_MS = "ttlMs";

  /** Who may reuse a cached result: {@link #PUBLIC} or {@link #PRIVATE}. */
  public static final String CACHE_SCOPE = "cacheScope";

  /** Reuse only within the same authorization context. */
  public static final String PRIVATE = "private";

  /** Any client or shared cache may reuse it. */
  public static final String PUBLIC = "public";

  private McpResults() {}
}
