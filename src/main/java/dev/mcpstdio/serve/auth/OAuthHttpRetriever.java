package dev.mcpstdio.serve.auth;

import com.nimbusds.jose.util.Resource;
import com.nimbusds.jose.util.ResourceRetriever;
import dev.mcpstdio.oauth.OAuthHttp;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Nimbus's key-set retrieval over the gateway's one OAuth HTTP path ({@link OAuthHttp}): no
 * redirects, no cookies, a timeout, bodies of at most 1 MiB, the operator's proxies and CA files.
 */
final class OAuthHttpRetriever implements ResourceRetriever {

  private final OAuthHttp http;

  OAuthHttpRetriever(OAuthHttp http) {
    this.http = http;
  }

  @Override
  public Resource retrieveResource(URL url) throws IOException {
    try {
      OAuthHttp.Answer answer = http.get(url.toURI(), Map.of("Accept", "application/jwk-set+json, application/json"));
      if (answer.status() != 200) {
        throw new IOException("the key set at " + url + " answered HTTP " + answer.status());
      }
      return new Resource(new String(answer.body(), StandardCharsets.UTF_8), answer.contentType());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while fetching " + url);
    } catch (URISyntaxException e) {
      throw new IOException("not a URI: " + url, e);
    }
  }
}
