package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ContentDecoderTest {

  static final byte[] BODY =
      ("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"text\":\"" + "héllo 😀 ".repeat(2000) + "\"}}")
          .getBytes(StandardCharsets.UTF_8);

  final ByteArrayOutputStream decoded = new ByteArrayOutputStream();

  ContentDecoder decoder(String encoding, long max) {
    ContentDecoder d = ContentDecoder.forEncoding(encoding, max, c -> decoded.write(bytes(c), 0, c.remaining()));
    assertThat(d).as(encoding).isNotNull();
    return d;
  }

  /** The chunk's bytes, without moving it. */
  static byte[] bytes(ByteBuffer chunk) {
    byte[] out = new byte[chunk.remaining()];
    chunk.duplicate().get(out);
    return out;
  }

  static byte[] deflate(byte[] data, boolean raw, int level) {
    Deflater deflater = new Deflater(level, raw);
    deflater.setInput(data);
    deflater.finish();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[64 * 1024];
    while (!deflater.finished()) {
      int n = deflater.deflate(buf);
      out.write(buf, 0, n);
    }
    deflater.end();
    return out.toByteArray();
  }

  /** A gzip member with the optional header fields selected by {@code flags}. */
  static byte[] gzip(byte[] data, int flags) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(new byte[] {0x1F, (byte) 0x8B, 8, (byte) flags, 1, 2, 3, 4, 0, (byte) 255});
    if ((flags & 0x04) != 0) { // FEXTRA: two subfields, 300 bytes (length > 255 checks byte order)
      byte[] extra = new byte[300];
      Arrays.fill(extra, (byte) 'e');
      extra[0] = 'A';
      extra[1] = 'B';
      extra[2] = (byte) (296 & 0xFF);
      extra[3] = (byte) (296 >> 8);
      out.write(extra.length & 0xFF);
      out.write(extra.length >> 8);
      out.writeBytes(extra);
    }
    if ((flags & 0x08) != 0) { // FNAME
      out.writeBytes("body.json".getBytes(StandardCharsets.ISO_8859_1));
      out.write(0);
    }
    if ((flags & 0x10) != 0) { // FCOMMENT
      out.writeBytes("a comment with \u00e9".getBytes(StandardCharsets.ISO_8859_1));
      out.write(0);
    }
    if ((flags & 0x02) != 0) { // FHCRC: CRC16 of the header (not verified by readers we target)
      CRC32 crc = new CRC32();
      crc.update(out.toByteArray());
      long v = crc.getValue();
      out.write((int) (v & 0xFF));
      out.write((int) ((v >> 8) & 0xFF));
    }
    out.writeBytes(deflate(data, true, Deflater.DEFAULT_COMPRESSION));
    CRC32 crc = new CRC32();
    crc.update(data);
    writeIntLe(out, crc.getValue());
    writeIntLe(out, data.length);
    return out.toByteArray();
  }

  static void writeIntLe(ByteArrayOutputStream out, long v) {
    for (int i = 0; i < 4; i++) {
      out.write((int) ((v >> (8 * i)) & 0xFF));
    }
  }

  void feed(ContentDecoder d, byte[] input, int chunk) throws IOException {
    for (int i = 0; i < input.length; i += chunk) {
      d.feed(ByteBuffer.wrap(input, i, Math.min(chunk, input.length - i)));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0x00, 0x02, 0x04, 0x08, 0x10, 0x1E, 0x08 | 0x02, 0x04 | 0x10})
  void gzipWithHeaderFieldsFedOneByteAtATime(int flags) throws IOException {
    ContentDecoder d = decoder("gzip", 0);
    feed(d, gzip(BODY, flags), 1);
    d.finish();
    assertThat(decoded.toByteArray()).isEqualTo(BODY);
  }

  @ParameterizedTest
  @ValueSource(ints = {0x00, 0x1E})
  void gzipWithHeaderFieldsInOneChunkAndOddChunks(int flags) throws IOException {
    byte[] gz = gzip(BODY, flags);
    ContentDecoder whole = decoder("gzip", 0);
    whole.feed(ByteBuffer.wrap(gz));
    whole.finish();
    assertThat(decoded.toByteArray()).isEqualTo(BODY);
    decoded.reset();
    ContentDecoder odd = decoder("x-gzip", 0);
    feed(odd, gz, 7);
    odd.finish();
    assertThat(decoded.toByteArray()).isEqualTo(BODY);
  }

  @Test
  void gzipFromTheJdk() throws IOException {
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      out.write(BODY);
    }
    ContentDecoder d = decoder(" GZIP ", 0);
    feed(d, gz.toByteArray(), 1000);
    d.finish();
    assertThat(decoded.toByteArray()).isEqualTo(BODY);
  }

  @Test
  void bytesAfterTheMemberAreIgnored() throws IOException {
    byte[] gz = gzip(BODY, 0);
    byte[] twice = Arrays.copyOf(gz, gz.length * 2);
    System.arraycopy(gz, 0, twice, gz.length, gz.length);
    ContentDecoder d = decoder("gzip", 0);
    feed(d, twice, 333);
    d.finish();
    assertThat(decoded.toByteArray()).isEqualTo(BODY);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 5000})
  void deflateZlib(int chunk) throws IOException {
    ContentDecoder d = decoder("deflate", 0);
    feed(d, deflate(BODY, false, 6), chunk);
    d.finish();
    assertThat(decoded.toByteArray()).isEqualTo(BODY);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 5000})
  void deflateRaw(int chunk) throws IOException {
    ContentDecoder d = decoder("Deflate", 0);
    feed(d, deflate(BODY, true, 9), chunk);
    d.finish();
    assertThat(decoded.toByteArray()).isEqualTo(BODY);
  }

  @Test
  void identity() throws IOException {
    for (String e : new String[] {null, "", "identity", " Identity "}) {
      decoded.reset();
      ContentDecoder d = decoder(e, 10); // the bound is the transport's business for identity
      feed(d, BODY, 4096);
      ByteBuffer direct = ByteBuffer.allocateDirect(3);
      direct.put(new byte[] {'a', 'b', 'c'}).flip();
      d.feed(direct);
      d.finish();
      byte[] expected = Arrays.copyOf(BODY, BODY.length + 3);
      expected[BODY.length] = 'a';
      expected[BODY.length + 1] = 'b';
      expected[BODY.length + 2] = 'c';
      assertThat(decoded.toByteArray()).isEqualTo(expected);
    }
  }

  @Test
  void supports() {
    assertThat(ContentDecoder.supports("gzip")).isTrue();
    assertThat(ContentDecoder.supports("x-gzip")).isTrue();
    assertThat(ContentDecoder.supports("deflate")).isTrue();
    assertThat(ContentDecoder.supports("identity")).isTrue();
    assertThat(ContentDecoder.supports(null)).isTrue();
    assertThat(ContentDecoder.supports("br")).isFalse();
    assertThat(ContentDecoder.supports("zstd")).isFalse();
    assertThat(ContentDecoder.supports("compress")).isFalse();
    assertThat(ContentDecoder.supports("gzip, br")).isFalse();
    assertThat(ContentDecoder.forEncoding("br", 0, c -> {})).isNull();
  }

  @Test
  @Timeout(20)
  void zipBombStopsAtTheBound() throws IOException {
    byte[] zeros = new byte[50 << 20];
    byte[] bomb = gzip(zeros, 0);
    assertThat(bomb.length).isLessThan(200_000);
    long[] received = {0};
    ContentDecoder d = ContentDecoder.forEncoding("gzip", 1 << 20, c -> received[0] += c.remaining());
    assertThatThrownBy(() -> d.feed(ByteBuffer.wrap(bomb)))
        .isInstanceOf(ContentDecoder.TooLargeException.class)
        .hasMessageContaining(String.valueOf(1 << 20));
    assertThat(received[0]).isLessThanOrEqualTo(1 << 20);
  }

  @Test
  void deflateBombStopsAtTheBound() {
    byte[] bomb = deflate(new byte[8 << 20], false, 9);
    ContentDecoder d = ContentDecoder.forEncoding("deflate", 100_000, c -> {});
    assertThatThrownBy(() -> feed(d, bomb, 100)).isInstanceOf(ContentDecoder.TooLargeException.class);
  }

  @Test
  void exactlyAtTheBoundPasses() throws IOException {
    ContentDecoder d = decoder("gzip", BODY.length);
    feed(d, gzip(BODY, 0), 512);
    d.finish();
    assertThat(decoded.toByteArray()).isEqualTo(BODY);
    ContentDecoder over = ContentDecoder.forEncoding("gzip", BODY.length - 1, c -> {});
    assertThatThrownBy(() -> feed(over, gzip(BODY, 0), 512)).isInstanceOf(ContentDecoder.TooLargeException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "deflate"})
  void truncatedStreamFailsAtFinish(String encoding) throws IOException {
    byte[] full = encoding.equals("gzip") ? gzip(BODY, 0x08) : deflate(BODY, false, 6);
    for (int cut : new int[] {1, 5, 12, full.length / 2, full.length - 20}) {
      ContentDecoder d = ContentDecoder.forEncoding(encoding, 0, c -> {});
      d.feed(ByteBuffer.wrap(full, 0, cut));
      assertThatThrownBy(d::finish).as("cut at %d", cut).isInstanceOf(IOException.class);
    }
  }

  @Test
  void emptyCompressedBodyFailsAtFinish() {
    ContentDecoder d = ContentDecoder.forEncoding("gzip", 0, c -> {});
    assertThatThrownBy(d::finish).isInstanceOf(IOException.class);
  }

  @Test
  void notGzipFails() {
    ContentDecoder d = ContentDecoder.forEncoding("gzip", 0, c -> {});
    assertThatThrownBy(() -> d.feed(ByteBuffer.wrap(BODY))).isInstanceOf(IOException.class).hasMessageContaining("gzip");
  }

  @Test
  void corruptDeflateDataFails() {
    byte[] gz = gzip(BODY, 0);
    for (int i = 10; i < 30; i++) {
      gz[i] = (byte) 0xFF;
    }
    ContentDecoder d = ContentDecoder.forEncoding("gzip", 0, c -> {});
    assertThatThrownBy(() -> d.feed(ByteBuffer.wrap(gz))).isInstanceOf(IOException.class);
  }

  private static void decodeWhole(byte[] body) throws IOException {
    ContentDecoder d = ContentDecoder.forEncoding("gzip", 0, c -> {});
    d.feed(ByteBuffer.wrap(body));
    d.finish();
  }

  @Test
  void aGzipBodyWithAWrongChecksumOrNoTrailerIsRejected() throws IOException {
    byte[] good = gzip("checked payload".getBytes(StandardCharsets.UTF_8), 0);
    decodeWhole(good);
    byte[] badCrc = good.clone();
    badCrc[badCrc.length - 8] ^= 0x01;
    assertThatThrownBy(() -> decodeWhole(badCrc)).hasMessageContaining("checksum mismatch");
    byte[] badSize = good.clone();
    badSize[badSize.length - 1] ^= 0x01;
    assertThatThrownBy(() -> decodeWhole(badSize)).hasMessageContaining("checksum mismatch");
    byte[] cut = Arrays.copyOf(good, good.length - 3);
    assertThatThrownBy(() -> decodeWhole(cut)).hasMessageContaining("trailer missing");
  }
}
