package dev.mcpstdio.serve.metrics;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /metrics}: the registry in the format the scraper's {@code Accept} asks for, by the
 * Prometheus client's own negotiation (the Prometheus text format 0.0.4 unless OpenMetrics is
 * asked for; the protobuf format is not offered). The snapshot is taken on the scraper's request
 * thread, never on the MCP path; the body, a few kilobytes, is written in one piece.
 */
public final class MetricsEndpoint {

  private final ServeMetrics metrics;
  private final ExpositionFormats formats = ExpositionFormats.init();

  public MetricsEndpoint(ServeMetrics metrics) {
    this.metrics = metrics;
  }

  public void scrape(Request request, Response response, Callback callback) throws IOException {
    ExpositionFormatWriter writer = formats.findWriter(request.getHeaders().get(HttpHeader.ACCEPT));
    if (!writer.isAvailable()) {
      writer = formats.getPrometheusTextFormatWriter();
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream(8192);
    writer.write(body, metrics.registry().scrape());
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, writer.getContentType());
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.size());
    if (request.getMethod().equals("HEAD")) {
      callback.succeeded();
      return;
    }
    response.write(true, ByteBuffer.wrap(body.toByteArray()), callback);
  }
}
