package dev.mcpstdio.oauth;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The top level of one JSON object as OAuth documents need it: strings, numbers (Long or Double),
 * booleans, and arrays of strings (other elements dropped); a nested object is present but opaque
 * ({@link #OPAQUE}). Null for anything that is not exactly one object. Never throws, and never puts
 * the input into a message.
 */
public final class OAuthJson {

  /** Stands for a nested object: the field exists, but no value is taken from it. */
  static final Object OPAQUE = new Object();

  /** The OAuth code's one factory (metadata, token answers, the token store). */
  static final JsonFactory JSON = JsonFactory.builder().build();

  private OAuthJson() {}

  public static Map<String, Object> object(byte[] body) {
    Map<String, Object> out = new LinkedHashMap<>();
    try (JsonParser p = JSON.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken t = p.nextToken();
        Object value = switch (t) {
          case VALUE_STRING -> p.getText();
          // an integer past a long (legal JSON) is kept as a double, not a reason to drop the document
          case VALUE_NUMBER_INT -> p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? p.getDoubleValue() : p.getLongValue();
          case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
          case VALUE_TRUE, VALUE_FALSE -> t == JsonToken.VALUE_TRUE;
          case VALUE_NULL -> null;
          case START_ARRAY -> strings(p);
          default -> {
            p.skipChildren();
            yield OPAQUE;
          }
        };
        if (value != null) {
          out.putIfAbsent(name, value);
        }
      }
      return p.nextToken() == null ? out : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static List<String> strings(JsonParser p) throws IOException {
    List<String> out = new ArrayList<>();
    for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
      if (t == JsonToken.VALUE_STRING) {
        out.add(p.getText());
      } else {
        p.skipChildren();
      }
    }
    return List.copyOf(out);
  }

  public static String string(Map<String, Object> fields, String name) {
    return fields.get(name) instanceof String s ? s : null;
  }

  @SuppressWarnings("unchecked")
  public static List<String> strings(Map<String, Object> fields, String name) {
    return fields.get(name) instanceof List<?> l ? (List<String>) l : List.of();
  }
}
