package dev.mcpstdio.serve.auth;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.jwk.source.RateLimitReachedException;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import com.nimbusds.jwt.proc.JWTClaimsSetVerifier;
import java.net.MalformedURLException;
import java.net.URI;
import java.text.ParseException;
import java.util.Set;

/**
 * Access tokens that are JWTs signed by the provider (RFC 9068), checked with Nimbus: the
 * signature with a key of the provider's JWKS (cached five minutes, fetched again when a token
 * names a key id the cache lacks, at most once every ten seconds), the algorithm from an
 * allow-list of asymmetric ones ({@code none} and HMAC are never accepted: a public key is no
 * secret), the type ({@code JWT} or {@code at+jwt}, or none), {@code iss} exactly the issuer,
 * {@code aud} holding the expected audience, {@code exp} required and {@code nbf} honoured with
 * {@link #CLOCK_SKEW_SECONDS} of skew, and {@code sub} present.
 */
final class JwtAccessTokens {

  /** How far the provider's clock and ours may disagree on {@code exp} and {@code nbf}. */
  static final int CLOCK_SKEW_SECONDS = 60;

  static final Set<JWSAlgorithm> ALGORITHMS = Set.of(JWSAlgorithm.RS256, JWSAlgorithm.RS384, JWSAlgorithm.RS512,
      JWSAlgorithm.PS256, JWSAlgorithm.PS384, JWSAlgorithm.PS512, JWSAlgorithm.ES256, JWSAlgorithm.ES384, JWSAlgorithm.ES512);

  /** The key set is kept this long, and refreshed within this long when it expires. */
  static final long KEYS_TTL_MILLIS = 5 * 60_000;
  static final long KEYS_REFRESH_TIMEOUT_MILLIS = 15_000;
  /** A token with a key id the cached set lacks fetches the set again, at most this often. */
  static final long KEYS_MIN_INTERVAL_MILLIS = 10_000;

  /** What one check expects beyond the fixed rules: the audience. */
  private record Expected(String audience) implements SecurityContext {}

  private final DefaultJWTProcessor<Expected> processor = new DefaultJWTProcessor<>();

  JwtAccessTokens(String issuer, URI jwksUri, OAuthHttpRetriever retriever) {
    this(issuer, jwksUri, retriever, KEYS_MIN_INTERVAL_MILLIS);
  }

  /** With the key set fetched again for an unknown key id at most every {@code keysMinIntervalMillis} (tests: short). */
  JwtAccessTokens(String issuer, URI jwksUri, OAuthHttpRetriever retriever, long keysMinIntervalMillis) {
    JWKSource<Expected> keys;
    try {
      keys = JWKSourceBuilder.<Expected>create(jwksUri.toURL(), retriever)
          .cache(KEYS_TTL_MILLIS, KEYS_REFRESH_TIMEOUT_MILLIS)
          .rateLimited(keysMinIntervalMillis)
          .build();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException("not a URL: " + jwksUri, e);
    }
    processor.setJWSKeySelector(new JWSVerificationKeySelector<>(ALGORITHMS, keys));
    processor.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(JOSEObjectType.JWT, new JOSEObjectType("at+jwt"),
        new JOSEObjectType("application/at+jwt"), null));
    JWTClaimsSet exact = new JWTClaimsSet.Builder().issuer(issuer).build();
    processor.setJWTClaimsSetVerifier(new JWTClaimsSetVerifier<>() {
      @Override
      public void verify(JWTClaimsSet claims, Expected expected) throws BadJWTException {
        DefaultJWTClaimsVerifier<Expected> v = new DefaultJWTClaimsVerifier<>(Set.of(expected.audience()), exact,
            Set.of("sub", "exp"), Set.of());
        v.setMaxClockSkew(CLOCK_SKEW_SECONDS);
        v.verify(claims, expected);
      }
    });
  }

  /** Whether {@code token} has the shape of a compact JWS (three dot-separated parts). */
  static boolean isJwt(String token) {
    int first = token.indexOf('.');
    int second = first < 0 ? -1 : token.indexOf('.', first + 1);
    return second > 0 && token.indexOf('.', second + 1) < 0;
  }

  /** The claims of a good token for {@code audience}; a {@link TokenVerdict} of its failure otherwise. */
  Checked check(String token, String audience) {
    try {
      return new Checked(processor.process(token, new Expected(audience)), null);
    } catch (ParseException e) {
      return new Checked(null, new TokenVerdict.Rejected("not a JWT: " + e.getMessage()));
    } catch (BadJOSEException e) {
      return new Checked(null, new TokenVerdict.Rejected(e.getMessage()));
    } catch (KeySourceException e) {
      // a flood of made-up key ids is held off by the rate limit: the token is simply not one of the provider's
      return new Checked(null, e instanceof RateLimitReachedException || e.getCause() instanceof RateLimitReachedException
          ? new TokenVerdict.Rejected("no key of the provider's set signed it")
          : new TokenVerdict.Unavailable("the provider's key set cannot be fetched: " + e.getMessage()));
    } catch (com.nimbusds.jose.JOSEException e) {
      return new Checked(null, new TokenVerdict.Rejected(e.getMessage()));
    }
  }

  /** Claims, or the verdict that took their place. */
  record Checked(JWTClaimsSet claims, TokenVerdict failure) {}
}
