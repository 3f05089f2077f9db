package dev.mcpstdio.testing;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** JSON assertions helpers (test scope uses Jackson databind; main code never does). */
public final class Jsons {

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private Jsons() {}

  public static JsonNode parse(String json) {
    return MAPPER.readTree(json);
  }

  /** The error message of an error response line, or null. */
  public static String errorMessage(String line) {
    JsonNode error = parse(line).get("error");
    return error == null ? null : error.get("message").asString();
  }

  public static int errorCode(String line) {
    return parse(line).get("error").get("code").asInt();
  }
}
