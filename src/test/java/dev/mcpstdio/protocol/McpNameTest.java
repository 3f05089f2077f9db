package dev.mcpstdio.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class McpNameTest {

  private static String b64(String s) {
    return "=?base64?" + Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8)) + "?=";
  }

  @Test
  void plainValuesGoVerbatim() {
    assertThat(McpName.encodeName("forecast")).isEqualTo("forecast");
    assertThat(McpName.encodeName("us west 1")).isEqualTo("us west 1");
    assertThat(McpName.encodeName("file:///a b?q=1&r=2#x")).isEqualTo("file:///a b?q=1&r=2#x");
    assertThat(McpName.encodeName("!~")).isEqualTo("!~");
    assertThat(McpName.encodeParam("test-method")).isEqualTo("test-method");
  }

  @Test
  void theSpecificationsExample() {
    assertThat(McpName.encodeName("météo")).isEqualTo("=?base64?bcOpdMOpbw==?=");
    assertThat(McpName.decode("=?base64?bcOpdMOpbw==?=")).contains("météo");
  }

  @Test
  void unsafeValuesAreEncoded() {
    for (String v :
        new String[] {
          "Hello, 世界", " padded ", " lead", "trail ", "line1\nline2", "line1\r\nline2", "\tindented",
          "in\tside", "nul\0", "del\u007f", "\u00a0nbsp", "emoji \uD83D\uDE00"
        }) {
      assertThat(McpName.encodeName(v)).as(v).isEqualTo(b64(v));
      assertThat(McpName.encodeParam(v)).as(v).isEqualTo(b64(v));
    }
  }

  @Test
  void sentinelShapedLiteralsAreEncoded() {
    for (String v : new String[] {"=?base64?SGVsbG8=?=", "=?BASE64?x?=", "=?utf-8?q?x?=", "=?=", "=??="}) {
      assertThat(McpName.encodeName(v)).as(v).isEqualTo(b64(v));
      assertThat(McpName.decode(McpName.encodeName(v))).contains(v);
    }
    // Only both ends together make the shape.
    assertThat(McpName.encodeName("=?base64?abc")).isEqualTo("=?base64?abc");
    assertThat(McpName.encodeName("abc?=")).isEqualTo("abc?=");
  }

  @Test
  void emptyIsVerbatimAsANameButEncodedAsAParam() {
    assertThat(McpName.encodeName("")).isEmpty();
    assertThat(McpName.encodeParam("")).isEqualTo("=?base64??=");
    assertThat(McpName.decode("=?base64??=")).contains("");
    assertThat(McpName.decode("")).contains("");
  }

  @Test
  void decodeTakesLiteralsAsTheyAre() {
    assertThat(McpName.decode("forecast")).contains("forecast");
    assertThat(McpName.decode("SGVsbG8=")).contains("SGVsbG8="); // no prefix: a literal
    assertThat(McpName.decode("=?base64?SGVsbG8=")).contains("=?base64?SGVsbG8="); // no suffix
    assertThat(McpName.decode("=?BASE64?SGVsbG8=?=")).contains("=?BASE64?SGVsbG8=?="); // markers are case-sensitive
    assertThat(McpName.decode("=?base64?=")).contains("=?base64?="); // markers overlap: too short
    assertThat(McpName.decode("a\tb")).contains("a\tb");
  }

  @Test
  void decodeAcceptsCanonicalBase64OfAnyValue() {
    assertThat(McpName.decode("=?base64?SGVsbG8=?=")).contains("Hello");
    assertThat(McpName.decode("=?base64?SGk=?=")).contains("Hi");
    assertThat(McpName.decode("=?base64?SGV5?=")).contains("Hey");
    assertThat(McpName.decode("=?base64?bGluZTEKbGluZTI=?=")).contains("line1\nline2");
  }

  @Test
  void decodeRejectsNonCanonicalOrInvalidBase64() {
    assertThat(McpName.decode("=?base64?SGVsbG8?=")).isEmpty(); // padding missing
    assertThat(McpName.decode("=?base64?SGVs!!!bG8=?=")).isEmpty(); // outside the alphabet
    assertThat(McpName.decode("=?base64?SGVsbG9=?=")).isEmpty(); // unused bits not zero ("Hello" is SGVsbG8=)
    assertThat(McpName.decode("=?base64?SGk==?=")).isEmpty(); // too much padding
    assertThat(McpName.decode("=?base64?SGVs bG8=?=")).isEmpty(); // inner space
    assertThat(McpName.decode("=?base64?SGVs\nbG8=?=")).isEmpty(); // line break
    assertThat(McpName.decode("=?base64?SGVsbG8-?=")).isEmpty(); // base64url alphabet
    assertThat(McpName.decode("=?base64?S?=")).isEmpty(); // truncated quantum
  }

  @Test
  void decodeRejectsPayloadsThatAreNotUtf8() {
    String latin1 = Base64.getEncoder().encodeToString(new byte[] {'c', (byte) 0xE9});
    assertThat(McpName.decode("=?base64?" + latin1 + "?=")).isEmpty();
    String overlong = Base64.getEncoder().encodeToString(new byte[] {(byte) 0xC0, (byte) 0xAF});
    assertThat(McpName.decode("=?base64?" + overlong + "?=")).isEmpty();
    String surrogate = Base64.getEncoder().encodeToString(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80});
    assertThat(McpName.decode("=?base64?" + surrogate + "?=")).isEmpty();
  }

  @Test
  void decodeRejectsLiteralsNoHeaderCanCarry() {
    assertThat(McpName.decode("météo")).isEmpty();
    assertThat(McpName.decode("a\nb")).isEmpty();
    assertThat(McpName.decode("a\u007fb")).isEmpty();
    assertThat(McpName.decode(null)).isEmpty();
  }

  @Test
  void aLoneSurrogateIsSentAsTheReplacementAndSoCannotMatch() {
    String lone = "a\uD800b";
    assertThat(McpName.encodeName(lone)).isEqualTo("=?base64?" + Base64.getEncoder().encodeToString("a?b".getBytes(StandardCharsets.US_ASCII)) + "?=");
    assertThat(McpName.decode(McpName.encodeName(lone))).contains("a?b").isNotEqualTo(lone);
  }
}
