package dev.mcpstdio.serve;

import org.eclipse.jetty.server.Request;

/**
 * Who is signed in when a browser reaches the embedded authorization server's authorization
 * endpoint: the value of {@code --trusted-user-header} (which an authenticating proxy in front
 * sets, and must strip from what clients send), else {@code --dev-user}, else nobody, and then the
 * authorization is denied (fail closed). A header that comes more than once names nobody (a
 * proxy that appended its value to a client's would otherwise let the client's win). A value is
 * taken only when it is a user name ({@link ServeConfig.EmbeddedOAuth#isUserName}: no control
 * characters to break a log line, nothing to pass for one of the gateway's own principals).
 */
final class SignedInUser {

  private final String header;
  private final String devUser;

  SignedInUser(ServeConfig.EmbeddedOAuth oauth) {
    this.header = oauth.trustedUserHeader();
    this.devUser = oauth.devUser();
  }

  String of(Request request) {
    if (header != null) {
      java.util.List<String> values = request.getHeaders().getValuesList(header);
      if (values.size() > 1) {
        return null; // a proxy that appends rather than replaces: the client's copy may be first
      }
      String value = values.isEmpty() ? null : values.getFirst().trim();
      if (ServeConfig.EmbeddedOAuth.isUserName(value)) {
        return value;
      }
    }
    return devUser;
  }
}
