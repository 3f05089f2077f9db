package dev.mcpstdio.oauth;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The token store's file: one JSON object, server key → login, with the field names the Python
 * tool uses ({@code access_token}, {@code expires_at} in epoch seconds...), so a store is shared
 * with it. A login with a missing access token or a field of the wrong type is dropped on reading
 * (its server logs in again); unknown fields are ignored. A file that is not one JSON object is
 * {@link Corrupt}.
 */
final class TokenStoreFormat {

  private static final JsonFactory JSON = OAuthJson.JSON;

  /** The file holds no JSON object of logins. */
  static final class Corrupt extends Exception {
    Corrupt(String message) {
      super(message);
    }
  }

  private TokenStoreFormat() {}

  static Map<String, TokenRecord> read(byte[] bytes) throws Corrupt {
    Map<String, TokenRecord> logins = new LinkedHashMap<>();
    if (bytes.length == 0) {
      return logins; // an empty placeholder is an empty store
    }
    try (JsonParser p = JSON.createParser(bytes)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new Corrupt("not a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String key = p.currentName();
        if (p.nextToken() != JsonToken.START_OBJECT) {
          p.skipChildren();
          continue;
        }
        TokenRecord record = record(p);
        if (record != null) {
          logins.put(key, record);
        }
      }
      if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
        throw new Corrupt("trailing data after the object");
      }
    } catch (IOException e) {
      throw new Corrupt("not valid JSON (" + e.getClass().getSimpleName() + ")"); // never the text: it may hold tokens
    }
    return logins;
  }

  /** One login, the parser on its START_OBJECT; null (the object consumed) when unusable. */
  private static TokenRecord record(JsonParser p) throws IOException {
    Map<String, Object> f = new LinkedHashMap<>();
    boolean wrongType = false;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken t = p.nextToken();
      switch (t) {
        case VALUE_STRING -> f.put(name, p.getText());
        case VALUE_NUMBER_INT -> f.put(name, p.getLongValue());
        case VALUE_NUMBER_FLOAT -> f.put(name, (long) p.getDoubleValue());
        case VALUE_TRUE, VALUE_FALSE -> f.put(name, t == JsonToken.VALUE_TRUE);
        case VALUE_NULL -> { }
        default -> {
          p.skipChildren();
          f.put(name, new Object()); // an object or array where a scalar belongs
        }
      }
    }
    try {
      return new TokenRecord(
          text(f, "access_token"), text(f, "token_type"), seconds(f, "expires_at"), text(f, "refresh_token"),
          text(f, "scope"), text(f, "client_id"), text(f, "client_secret"), seconds(f, "client_secret_expires_at"),
          text(f, "token_endpoint"), text(f, "authorization_endpoint"), text(f, "registration_endpoint"),
          text(f, "issuer"), text(f, "token_endpoint_auth_method"), Boolean.TRUE.equals(flag(f, "no_resource_indicator")),
          flag(f, "iss_parameter_supported"), text(f, "id_token"), text(f, "oauth_resource"),
          Boolean.TRUE.equals(flag(f, "device_client")));
    } catch (IllegalArgumentException | ClassCastException e) {
      return null;
    }
  }

  private static String text(Map<String, Object> f, String name) {
    Object v = f.get(name);
    return v == null ? null : (String) v;
  }

  private static Instant seconds(Map<String, Object> f, String name) {
    Object v = f.get(name);
    long s = v == null ? 0 : (Long) v;
    return v == null || s <= 0 ? null : Instant.ofEpochSecond(s); // 0: no expiry, as RFC 7591 says for secrets
  }

  private static Boolean flag(Map<String, Object> f, String name) {
    return (Boolean) f.get(name);
  }

  static byte[] write(Map<String, TokenRecord> logins) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.useDefaultPrettyPrinter();
      g.writeStartObject();
      for (Map.Entry<String, TokenRecord> e : logins.entrySet()) {
        TokenRecord r = e.getValue();
        g.writeObjectFieldStart(e.getKey());
        string(g, "access_token", r.accessToken());
        string(g, "token_type", r.tokenType());
        if (r.expiresAt() != null) {
          g.writeNumberField("expires_at", r.expiresAt().getEpochSecond());
        }
        string(g, "refresh_token", r.refreshToken());
        string(g, "scope", r.scope());
        string(g, "client_id", r.clientId());
        string(g, "client_secret", r.clientSecret());
        if (r.clientSecretExpiresAt() != null) {
          g.writeNumberField("client_secret_expires_at", r.clientSecretExpiresAt().getEpochSecond());
        }
        string(g, "token_endpoint", r.tokenEndpoint());
        string(g, "authorization_endpoint", r.authorizationEndpoint());
        string(g, "registration_endpoint", r.registrationEndpoint());
        string(g, "issuer", r.issuer());
        string(g, "token_endpoint_auth_method", r.tokenEndpointAuthMethod());
        if (r.noResourceIndicator()) {
          g.writeBooleanField("no_resource_indicator", true);
        }
        if (r.issParameterSupported() != null) {
          g.writeBooleanField("iss_parameter_supported", r.issParameterSupported());
        }
        string(g, "id_token", r.idToken());
        string(g, "oauth_resource", r.resource());
        if (r.deviceClient()) {
          g.writeBooleanField("device_client", true);
        }
        g.writeEndObject();
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // writing to memory
    }
    out.write('\n');
    return out.toByteArray();
  }

  private static void string(JsonGenerator g, String name, String value) throws IOException {
    if (value != null) {
      g.writeStringField(name, value);
    }
  }
}
