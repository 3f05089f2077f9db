package dev.mcpstdio.serve.auth;

import java.util.List;

/**
 * What the embedded authorization server keeps across a restart ({@code --token-store}): its
 * clients, and its codes, grant families and access tokens under their store keys. Codes and
 * tokens are held only as base64url SHA-256 digests, so the state (and its file) holds no
 * credential a thief could present.
 */
record GrantState(List<RegisteredClient> clients, List<Keyed<Grants.Code>> codes, List<Keyed<Grants.Family>> families,
    List<Keyed<Grants.Token>> accessTokens) {

  static final GrantState EMPTY = new GrantState(List.of(), List.of(), List.of(), List.of());

  GrantState {
    clients = List.copyOf(clients);
    codes = List.copyOf(codes);
    families = List.copyOf(families);
    accessTokens = List.copyOf(accessTokens);
  }

  /** An entry and its store key. */
  record Keyed<V>(String key, V value) {}

  int size() {
    return clients.size() + codes.size() + families.size() + accessTokens.size();
  }
}
