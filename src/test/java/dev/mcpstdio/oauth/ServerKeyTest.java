package dev.mcpstdio.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** One key per server, whatever the spelling; different servers never share one. */
class ServerKeyTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "https://Example.COM/mcp/           | https://example.com/mcp",
      "HTTPS://example.com:443/mcp        | https://example.com/mcp",
      "http://example.com:80/mcp          | http://example.com/mcp",
      "http://example.com:8080/mcp        | http://example.com:8080/mcp",
      "https://user:pw@example.com/mcp    | https://example.com/mcp",
      "https://example.com/mcp?tenant=a   | https://example.com/mcp?tenant=a",
      "https://example.com/mcp#frag       | https://example.com/mcp",
      "https://example.com                | https://example.com",
      "https://example.com///             | https://example.com",
      "http://[::1]:9000/mcp              | http://[::1]:9000/mcp",
      "http://[FE80::1]/mcp               | http://[fe80::1]/mcp",
      "https://example.com/A/Path         | https://example.com/A/Path",
      "not a url                          | not a url",
      "mcp.example.com/mcp                | mcp.example.com/mcp",
  })
  void spellingsOfOneServerShareAKey(String url, String key) {
    assertThat(ServerKey.of(url)).isEqualTo(key);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "https://example.com/mcp?tenant=a | https://example.com/mcp?tenant=b",
      "https://example.com/mcp          | http://example.com/mcp",
      "https://example.com/mcp          | https://example.com:8443/mcp",
      "https://example.com/a            | https://example.com/b",
  })
  void differentServersNeverShareAKey(String a, String b) {
    assertThat(ServerKey.of(a)).isNotEqualTo(ServerKey.of(b));
  }
}
