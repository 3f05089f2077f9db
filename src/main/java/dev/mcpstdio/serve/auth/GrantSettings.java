package dev.mcpstdio.serve.auth;

import java.time.Duration;

/**
 * The embedded authorization server's lifetimes and bounds (docs/reference.md, "The embedded
 * authorization server"). Every store is bounded so that a flood of registrations or logins cannot
 * grow the gateway's memory: at its bound a store first drops what expired, then what expires
 * soonest (the clients: the oldest registration), so the server never refuses for being full.
 *
 * @param accessTokenTtl how long an access token lives ({@code --access-token-ttl})
 * @param codeTtl how long an authorization code may wait to be redeemed (60 s)
 * @param refreshTokenTtl how long a refresh token lives, and a grant family with it (30 days)
 * @param replayGrace a used code or rotated refresh token presented again within this long is
 *     refused plainly (a client's retry after a lost answer); later, its whole family is revoked
 * @param maxClients registered clients kept at most
 * @param maxEntries entries kept at most in each store of codes, tokens and used ones
 */
public record GrantSettings(Duration accessTokenTtl, Duration codeTtl, Duration refreshTokenTtl, Duration replayGrace,
    int maxClients, int maxEntries) {

  public static final Duration DEFAULT_ACCESS_TOKEN_TTL = Duration.ofHours(1);
  public static final GrantSettings DEFAULTS = new GrantSettings(DEFAULT_ACCESS_TOKEN_TTL, Duration.ofSeconds(60),
      Duration.ofDays(30), Duration.ofSeconds(10), 1000, 10_000);

  public GrantSettings {
    if (accessTokenTtl.toSeconds() < 2 || codeTtl.isNegative() || codeTtl.isZero() || refreshTokenTtl.compareTo(accessTokenTtl) < 0
        || replayGrace.isNegative() || maxClients < 1 || maxEntries < 1) {
      throw new IllegalArgumentException("grant settings out of range");
    }
  }

  public GrantSettings withAccessTokenTtl(Duration ttl) {
    return new GrantSettings(ttl, codeTtl, refreshTokenTtl, replayGrace, maxClients, maxEntries);
  }
}
