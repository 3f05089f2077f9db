package dev.mcpstdio.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.testing.Await;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class StdoutWireTest {

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Records each write and flush call separately, to see what one write() hands the OS. */
  static final class Recording extends OutputStream {
    final ByteArrayOutputStream all = new ByteArrayOutputStream();
    final AtomicInteger flushes = new AtomicInteger();
    boolean closed;

    @Override
    public synchronized void write(int b) {
      all.write(b);
    }

    /** Hands the bytes on in small pieces, yielding in between, as a pipe may: not atomic. */
    @Override
    public void write(byte[] b, int off, int len) {
      for (int i = 0; i < len; i += 64) {
        synchronized (this) {
          all.write(b, off + i, Math.min(64, len - i));
        }
        Thread.yield();
      }
    }

    @Override
    public void flush() {
      flushes.incrementAndGet();
    }

    @Override
    public void close() {
      closed = true;
    }

    String text() {
      synchronized (this) {
        return all.toString(StandardCharsets.UTF_8);
      }
    }
  }

  @Test
  void oneLinePerWriteAndFlushed() {
    Recording out = new Recording();
    StdoutWire wire = new StdoutWire(out);
    assertThat(wire.write(b("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"))).isTrue();
    assertThat(wire.write(b("{\n  \"a\": \"x\u2028y\"\r\n}"))).isTrue();
    assertThat(out.text()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{   \"a\": \"x\\u2028y\"  }\n");
    assertThat(out.flushes.get()).isGreaterThanOrEqualTo(2);
    assertThat(wire.isBroken()).isFalse();
  }

  @Test
  void concurrentWritersNeverInterleave() throws Exception {
    Recording out = new Recording();
    StdoutWire wire = new StdoutWire(out);
    int threads = 32;
    int perThread = 300;
    String pad = "p".repeat(2000); // long lines make a torn write likely if unlocked
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      workers.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      start.await();
                    } catch (InterruptedException e) {
                      return;
                    }
                    for (int i = 0; i < perThread; i++) {
                      String json = "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "-" + i + "\",\"result\":{\n\"pad\":\"" + pad + "\"}}";
                      assertThat(wire.write(b(json))).isTrue();
                    }
                  }));
    }
    start.countDown();
    for (Thread w : workers) {
      w.join();
    }
    String[] lines = out.text().split("\n", -1);
    assertThat(lines).hasSize(threads * perThread + 1);
    assertThat(lines[lines.length - 1]).isEmpty();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < lines.length - 1; i++) {
      JsonRpcMessage m = JsonRpcCodec.parse(b(lines[i]));
      assertThat(m).isInstanceOf(JsonRpcMessage.Response.class);
      assertThat(seen.add(((JsonRpcMessage.Response) m).id().value())).isTrue();
    }
    assertThat(seen).hasSize(threads * perThread);
  }

  /** Fails every write after the first {@code okWrites}. */
  static final class Breaking extends OutputStream {
    final AtomicInteger writes = new AtomicInteger();
    final int okWrites;

    Breaking(int okWrites) {
      this.okWrites = okWrites;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (writes.incrementAndGet() > okWrites) {
        throw new IOException("Broken pipe");
      }
    }
  }

  @Test
  void brokenStreamMarksBrokenAndCallsOnBrokenOnce() {
    Breaking out = new Breaking(1);
    StdoutWire wire = new StdoutWire(out);
    AtomicInteger calls = new AtomicInteger();
    wire.onBroken(calls::incrementAndGet);
    assertThat(wire.write(b("{}"))).isTrue();
    assertThat(wire.isBroken()).isFalse();
    assertThat(wire.write(b("{}"))).isFalse();
    assertThat(wire.isBroken()).isTrue();
    assertThat(calls.get()).isEqualTo(1);
    assertThat(wire.write(b("{}"))).isFalse();
    assertThat(wire.write(b("{}"))).isFalse();
    assertThat(calls.get()).isEqualTo(1);
    assertThat(out.writes.get()).isEqualTo(2); // refused writes never reach the stream
  }

  @Test
  void brokenStreamUnderConcurrencyCallsOnBrokenOnce() throws Exception {
    Breaking out = new Breaking(50);
    StdoutWire wire = new StdoutWire(out);
    AtomicInteger calls = new AtomicInteger();
    wire.onBroken(calls::incrementAndGet);
    AtomicInteger ok = new AtomicInteger();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < 16; t++) {
      workers.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    for (int i = 0; i < 20; i++) {
                      if (wire.write(b("{\"a\":1}"))) {
                        ok.incrementAndGet();
                      }
                    }
                  }));
    }
    for (Thread w : workers) {
      w.join();
    }
    assertThat(ok.get()).isEqualTo(50);
    assertThat(calls.get()).isEqualTo(1);
    assertThat(wire.isBroken()).isTrue();
  }

  @Test
  void onBrokenCallbackMayWriteAgainWithoutDeadlock() throws Exception {
    Breaking out = new Breaking(0);
    StdoutWire wire = new StdoutWire(out);
    AtomicInteger nested = new AtomicInteger(-1);
    // a callback that writes (say, a last error) must not hang; the write is refused
    wire.onBroken(() -> nested.set(wire.write(b("{}")) ? 1 : 0));
    Thread t = Thread.ofVirtual().start(() -> wire.write(b("{}")));
    Await.until("onBroken callback ran", () -> nested.get() >= 0);
    t.join();
    assertThat(nested.get()).isZero();
  }

  @Test
  void closeRefusesLaterWrites() {
    Recording out = new Recording();
    StdoutWire wire = new StdoutWire(out);
    AtomicInteger calls = new AtomicInteger();
    wire.onBroken(calls::incrementAndGet);
    wire.write(b("{}"));
    wire.close();
    assertThat(out.closed).isTrue();
    assertThat(wire.isBroken()).isTrue();
    assertThat(wire.write(b("{\"late\":1}"))).isFalse();
    assertThat(out.text()).isEqualTo("{}\n");
    assertThat(calls.get()).isZero(); // a deliberate close is not a broken pipe
  }

  /** Records the writes handed to the stream, to see a large message leave in slices. */
  static final class Counting extends ByteArrayOutputStream {
    int writes;
    final List<Integer> lengths = new ArrayList<>();
    final Set<byte[]> sources = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      writes++;
      lengths.add(len);
      sources.add(b);
      super.write(b, off, len);
    }
  }

  @Test
  void aLargeMessageLeavesInSlicesRewrittenExactlyAsAWholeFrameWouldBe() {
    // Line separators placed so that a 64 KiB slice boundary falls before, inside (after each of
    // its first two bytes) and after one; raw CR/LF whitespace near the end.
    for (int shift = -3; shift <= 1; shift++) {
      StringBuilder json = new StringBuilder("{\"a\":\"");
      json.append("x".repeat(StdoutWire.LARGE - json.length() + shift)).append('\u2028');
      json.append("y".repeat(StdoutWire.LARGE - 2)).append('\u2029').append("\u00e9z".repeat(20_000));
      json.append("\"\r\n,\"b\":\n1}");
      byte[] bytes = b(json.toString());
      Counting out = new Counting();
      assertThat(new StdoutWire(out).write(bytes)).isTrue();
      assertThat(out.toByteArray()).as("shift " + shift).isEqualTo(dev.mcpstdio.wire.Ndjson.frame(bytes));
      assertThat(out.writes).isGreaterThanOrEqualTo(3);
      // Every slice but the last is at least 64 KiB, so none waits in a 64 KiB buffer.
      assertThat(out.lengths.subList(0, out.lengths.size() - 2)).allMatch(n -> n >= StdoutWire.LARGE);
    }
  }

  @Test
  void aLargeMessageWithNothingToRewriteIsWrittenFromItsOwnBytes() {
    // An odd prefix puts slice ends inside two-byte characters: each slice ends one byte later.
    byte[] bytes = b("{\"ab\":\"" + "\u00e9".repeat(StdoutWire.LARGE) + "\"}");
    Counting out = new Counting();
    assertThat(new StdoutWire(out).write(bytes)).isTrue();
    assertThat(out.sources).as("written from the message's own array, no copy").contains(bytes);
    assertThat(out.lengths.get(0)).isEqualTo(StdoutWire.LARGE + 1);
    byte[] expected = java.util.Arrays.copyOf(bytes, bytes.length + 1);
    expected[bytes.length] = '\n';
    assertThat(out.toByteArray()).isEqualTo(expected);
  }
}
