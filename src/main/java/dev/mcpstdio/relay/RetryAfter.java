package dev.mcpstdio.relay;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Parses an HTTP {@code Retry-After} value (RFC 9110 section 10.2.3): delta-seconds, or an
 * HTTP-date in any of the three formats a recipient must accept (IMF-fixdate, the obsolete RFC 850
 * form and asctime). Fractional seconds are accepted, negative delays and dates in the past mean
 * "now", and anything else (garbage, NaN, infinity) means "no usable value".
 */
final class RetryAfter {

  private static final DateTimeFormatter RFC_850 =
      new DateTimeFormatterBuilder()
          .parseCaseInsensitive()
          .appendPattern("EEEE, dd-MMM-")
          .appendValueReduced(ChronoField.YEAR, 2, 2, 1970)
          .appendPattern(" HH:mm:ss 'GMT'")
          .toFormatter(Locale.US);

  private static final DateTimeFormatter ASCTIME =
      new DateTimeFormatterBuilder()
          .parseCaseInsensitive()
          .appendPattern("EEE MMM ")
          .padNext(2)
          .appendValue(ChronoField.DAY_OF_MONTH)
          .appendPattern(" HH:mm:ss yyyy")
          .toFormatter(Locale.US);

  /** Delta-seconds, optionally signed or fractional; nothing else (no exponent, no "5d", no hex). */
  private static final Pattern DELTA =
      Pattern.compile("[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)");

  private RetryAfter() {}

  /** The delay the header asks for, or null when the header is absent or unusable. */
  static Duration parse(String value, Instant now) {
    if (value == null) {
      return null;
    }
    String v = value.trim();
    if (v.isEmpty()) {
      return null;
    }
    char first = v.charAt(0);
    if (Character.isDigit(first) || first == '-' || first == '+' || first == '.') {
      return seconds(v);
    }
    Instant at = date(v);
    if (at == null) {
      return null;
    }
    Duration delay = Duration.between(now, at);
    return delay.isNegative() ? Duration.ZERO : delay;
  }

  private static Duration seconds(String v) {
    if (!DELTA.matcher(v).matches()) {
      return null; // Double.parseDouble would also take "5d", "1e3", "0x1p3"
    }
    double seconds;
    try {
      seconds = Double.parseDouble(v);
    } catch (NumberFormatException e) {
      return null;
    }
    if (Double.isNaN(seconds)) {
      return null;
    }
    if (seconds <= 0) {
      return Duration.ZERO;
    }
    if (seconds > 365L * 24 * 3600) { // includes a digit string too long for a double
      seconds = 365L * 24 * 3600; // far beyond any cap; avoid overflow
    }
    return Duration.ofNanos((long) (seconds * 1_000_000_000L));
  }

  private static Instant date(String v) {
    try {
      return ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
    } catch (DateTimeParseException ignored) {
      // try the obsolete forms
    }
    try {
      return LocalDateTime.parse(v, RFC_850).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException ignored) {
      // try asctime
    }
    try {
      return LocalDateTime.parse(v.replaceAll(" +", " ").replaceFirst("^(\\w+ \\w+) (\\d) ", "$1  $2 "), ASCTIME)
          .toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException ignored) {
      return null;
    }
  }
}
