package dev.mcpstdio.serve.era2026;

import java.util.List;
import java.util.Locale;

/**
 * Whether an {@code Accept} header lets serve answer with a media type (RFC 9110 12.5.1;
 * mcp-stdio.md 4.7: the 2026 era's listen stream needs {@code text/event-stream}).
 *
 * <p>Rules: no {@code Accept} at all accepts anything; each range is {@code type/subtype}, {@code
 * type/*} or {@code *}{@code /*} with optional parameters; the most specific range that matches
 * decides ({@code type/subtype} over {@code type/*} over {@code *}{@code /*}), and among equally
 * specific ones the highest {@code q}; {@code q=0} refuses. Types compare ignoring case; media type
 * parameters other than {@code q} do not narrow a match (a client asking for {@code
 * application/json;charset=utf-8} wants JSON). A range that does not parse is skipped; a header
 * with no range that parses counts as absent, since it says nothing serve can honour.
 *
 * <p>Bound: at most {@link #MAX_RANGES} ranges are read over all the header's lines; the rest
 * are ignored (a real client sends a handful).
 */
public final class AcceptRanges {

  /** The event stream's media type. */
  public static final String EVENT_STREAM = "text/event-stream";

  /** JSON's media type. */
  public static final String JSON = "application/json";

  /** Most ranges read from one request's {@code Accept} lines. */
  public static final int MAX_RANGES = 64;

  private AcceptRanges() {}

  /**
   * True when {@code acceptLines} (every {@code Accept} line of the request, in order) let the
   * answer be {@code mediaType} (a {@code type/subtype} with no parameters).
   */
  public static boolean accepts(List<String> acceptLines, String mediaType) {
    String wanted = mediaType.toLowerCase(Locale.ROOT);
    int slash = wanted.indexOf('/');
    String type = wanted.substring(0, slash);
    int bestSpecificity = -1;
    int bestQ = -1;
    int read = 0;
    boolean parsedAny = false;
    for (String line : acceptLines) {
      for (String element : line.split(",", -1)) {
        if (read++ >= MAX_RANGES) {
          return parsedAny ? bestQ > 0 : true;
        }
        Range range = Range.parse(element);
        if (range == null) {
          continue;
        }
        parsedAny = true;
        int specificity = range.specificity(type, wanted);
        if (specificity > bestSpecificity || specificity == bestSpecificity && specificity >= 0 && range.q() > bestQ) {
          bestSpecificity = specificity;
          bestQ = specificity < 0 ? -1 : range.q();
        }
      }
    }
    if (!parsedAny) {
      return true;
    }
    return bestQ > 0;
  }

  /**
   * One media range.
   *
   * @param q the weight in thousandths, 0..1000
   */
  record Range(String type, String subtype, int q) {

    /** 2 for an exact match, 1 for {@code type/*}, 0 for {@code *}{@code /*}, -1 for no match. */
    int specificity(String wantedType, String wanted) {
      if (type.equals("*") && subtype.equals("*")) {
        return 0;
      }
      if (!type.equals(wantedType)) {
        return -1;
      }
      if (subtype.equals("*")) {
        return 1;
      }
      return wanted.equals(type + "/" + subtype) ? 2 : -1;
    }

    static Range parse(String element) {
      String[] parts = element.split(";", -1);
      String media = HeaderLines.trimOws(parts[0]).toLowerCase(Locale.ROOT);
      int slash = media.indexOf('/');
      if (slash <= 0 || slash == media.length() - 1 || media.indexOf('/', slash + 1) >= 0) {
        return null;
      }
      String type = media.substring(0, slash);
      String subtype = media.substring(slash + 1);
      if (!isToken(type) || !isToken(subtype) || type.equals("*") && !subtype.equals("*")) {
        return null;
      }
      int q = 1000;
      for (int i = 1; i < parts.length; i++) {
        String param = HeaderLines.trimOws(parts[i]);
        int eq = param.indexOf('=');
        if (eq > 0 && HeaderLines.trimOws(param.substring(0, eq)).equalsIgnoreCase("q")) {
          q = weight(HeaderLines.trimOws(param.substring(eq + 1)));
          if (q < 0) {
            return null;
          }
        }
      }
      return new Range(type, subtype, q);
    }

    /** RFC 9110 12.4.2 {@code qvalue} in thousandths, or -1 when it is not one. */
    static int weight(String text) {
      if (text.isEmpty() || text.length() > 5 || (text.charAt(0) != '0' && text.charAt(0) != '1')) {
        return -1;
      }
      if (text.length() == 1) {
        return text.charAt(0) == '1' ? 1000 : 0;
      }
      if (text.charAt(1) != '.') {
        return -1;
      }
      int thousandths = 0;
      for (int i = 2; i < 5; i++) {
        int digit = 0;
        if (i < text.length()) {
          char c = text.charAt(i);
          if (c < '0' || c > '9') {
            return -1;
          }
          digit = c - '0';
        }
        thousandths = thousandths * 10 + digit;
      }
      if (text.charAt(0) == '1') {
        return thousandths == 0 ? 1000 : -1;
      }
      return thousandths;
    }

    private static boolean isToken(String s) {
      if (s.isEmpty()) {
        return false;
      }
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        boolean ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
        if (!ok) {
          return false;
        }
      }
      return true;
    }
  }
}
