package dev.mcpstdio.serve.era2026;

/**
 * Who sent a request, as the authentication gate decided: the key of the 2026 era's pool, so that
 * one principal's requests never reach another's child. The gateway's own principals start with a
 * NUL, which no user name from an identity provider can hold, so they never collide with one.
 */
public final class Principals {

  /** The request attribute the authentication gate sets to the principal's name. */
  public static final String ATTRIBUTE = "dev.mcpstdio.serve.principal";

  /** Everyone, when the endpoint needs no authentication. */
  public static final String OPEN = "\0open";

  /** Whoever holds the static bearer token ({@code --auth-token}): one principal for all. */
  public static final String STATIC_TOKEN = "\0static-token";

  private Principals() {}
}
