package dev.mcpstdio.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.ParamHeaders.Annotation;
import dev.mcpstdio.protocol.ParamHeaders.Invalid;
import dev.mcpstdio.protocol.ParamHeaders.Scan;
import dev.mcpstdio.protocol.ParamHeaders.Type;
import dev.mcpstdio.protocol.ParamHeaders.Valid;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** x-mcp-header validity, rule by rule (spec.md 5.8; mcp-stdio.md 2.11; conformance http-invalid-tool-headers). */
class ParamHeadersScanTest {

  /** Single quotes stand for double quotes, to keep the schemas readable. */
  static Scan scan(String schema) {
    byte[] bytes = ("{\"inputSchema\":" + schema.replace('\'', '"') + "}").getBytes(StandardCharsets.UTF_8);
    int start = "{\"inputSchema\":".length();
    return ParamHeaders.scan(bytes, new JsonSpan(start, bytes.length - 1));
  }

  static List<Annotation> valid(String schema) {
    Scan scan = scan(schema);
    assertThat(scan).as("%.200s -> %.300s", schema, scan).isInstanceOf(Valid.class);
    return ((Valid) scan).annotations();
  }

  static String invalid(String schema) {
    Scan scan = scan(schema);
    assertThat(scan).as("%.200s -> %.300s", schema, scan).isInstanceOf(Invalid.class);
    return ((Invalid) scan).reason();
  }

  static String prop(String type, String header) {
    return "{'type':'" + type + "','x-mcp-header':'" + header + "'}";
  }

  @Test
  void annotationsOnTopLevelPropertiesOfEachAllowedType() {
    assertThat(valid("{'type':'object','properties':{'region':" + prop("string", "Region") + ",'priority':"
            + prop("integer", "Priority") + ",'verbose':" + prop("boolean", "Verbose") + ",'query':{'type':'string'}}}"))
        .containsExactly(
            new Annotation("Region", List.of("region"), Type.STRING),
            new Annotation("Priority", List.of("priority"), Type.INTEGER),
            new Annotation("Verbose", List.of("verbose"), Type.BOOLEAN));
  }

  @Test
  void nestedPropertiesChainsAreReachable() {
    assertThat(valid("{'type':'object','properties':{'target':{'type':'object','properties':{'region':"
            + prop("string", "Region") + "}}}}"))
        .containsExactly(new Annotation("Region", List.of("target", "region"), Type.STRING));
    assertThat(new Annotation("Region", List.of("r"), Type.STRING).headerName()).isEqualTo("Mcp-Param-Region");
  }

  @Test
  void noAnnotationsIsValidAndEmpty() {
    assertThat(valid("{'type':'object','properties':{'a':{'type':'string'}}}")).isEmpty();
    assertThat(valid("{}")).isEmpty();
    assertThat(valid("true")).isEmpty();
    assertThat(ParamHeaders.scan(new byte[0], null)).isEqualTo(new Valid(List.of()));
  }

  @Test
  void aPropertyNamedLikeTheAnnotationOrAKeywordIsJustAProperty() {
    assertThat(valid("{'type':'object','properties':{'x-mcp-header':{'type':'string'},'items':"
            + prop("string", "Items") + ",'anyOf':" + prop("integer", "AnyOf") + "}}"))
        .extracting(Annotation::name)
        .containsExactly("Items", "AnyOf");
  }

  @Test
  void dataKeywordsAreNotSchemas() {
    assertThat(valid("{'type':'object','properties':{'a':{'type':'object','default':{'x-mcp-header':'A'},"
            + "'const':{'x-mcp-header':'B'},'enum':[{'x-mcp-header':'C'}],'examples':[{'x-mcp-header':'D'}]}}}"))
        .isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{'type':'object','x-mcp-header':'Root'}",
        "{'type':'object','properties':{'list':{'type':'array','items':PROP}}}",
        "{'type':'object','properties':{'list':{'type':'array','items':[PROP]}}}",
        "{'type':'object','properties':{'list':{'type':'array','prefixItems':[PROP]}}}",
        "{'type':'object','properties':{'list':{'type':'array','contains':PROP}}}",
        "{'type':'object','anyOf':[{'properties':{'a':PROP}}]}",
        "{'type':'object','oneOf':[{'properties':{'a':PROP}}]}",
        "{'type':'object','allOf':[{'properties':{'a':PROP}}]}",
        "{'type':'object','properties':{'a':{'anyOf':[PROP]}}}",
        "{'type':'object','not':{'properties':{'a':PROP}}}",
        "{'type':'object','if':{'properties':{'a':PROP}}}",
        "{'type':'object','then':{'properties':{'a':PROP}}}",
        "{'type':'object','else':{'properties':{'a':PROP}}}",
        "{'type':'object','additionalProperties':PROP}",
        "{'type':'object','patternProperties':{'^a':PROP}}",
        "{'type':'object','$defs':{'a':PROP}}",
        "{'type':'object','definitions':{'a':PROP}}",
        "{'type':'object','dependentSchemas':{'a':{'properties':{'b':PROP}}}}",
        "{'type':'object','unknownKeyword':{'properties':{'a':PROP}}}",
        "{'type':'object','properties':{'a':{'type':'object','additionalProperties':{'properties':{'b':PROP}}}}}",
        "{'type':'object','$defs':{'d':{'type':'object','properties':{'b':PROP}}},'properties':{'a':{'$ref':'#/$defs/d'}}}"
      })
  void anAnnotationOffThePropertiesChainMakesTheToolInvalid(String schema) {
    String reason = invalid(schema.replace("PROP", prop("string", "Region")));
    assertThat(reason).contains("is not on a property reached through \"properties\" alone");
  }

  @Test
  void refIsNeverFollowed() {
    // The property is only a $ref to an annotated definition: not followed, so no annotation is
    // taken from it; the definition itself sits under $defs, which makes the tool invalid.
    assertThat(invalid("{'type':'object','properties':{'a':{'$ref':'#/$defs/r'}},'$defs':{'r':" + prop("string", "R") + "}}"))
        .contains("/$defs/r");
    // A $ref to elsewhere on an annotated property: the property's own members decide.
    assertThat(valid("{'type':'object','properties':{'a':{'type':'string','x-mcp-header':'A','$ref':'https://example.com/s.json'}}}"))
        .containsExactly(new Annotation("A", List.of("a"), Type.STRING));
    // A network $ref without annotations (conformance json-schema-ref-no-deref): valid, nothing fetched.
    assertThat(valid("{'$schema':'https://json-schema.org/draft/2020-12/schema','type':'object','$defs':{'userId':"
            + "{'type':'string','pattern':'^[a-z0-9-]+$'}},'properties':{'id':{'$ref':'#/$defs/userId'},'profile':"
            + "{'$ref':'http://127.0.0.1:1/canary/profile-schema.json'}},'required':['id']}"))
        .isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"object", "array", "null", "number"})
  void onlyStringIntegerAndBooleanProperties(String type) {
    assertThat(invalid("{'type':'object','properties':{'a':" + prop(type, "A") + "}}"))
        .contains("the property's type is \"" + type + "\"");
  }

  @Test
  void theTypeMustBeExactlyOneOfThoseStrings() {
    assertThat(invalid("{'type':'object','properties':{'a':{'x-mcp-header':'A'}}}")).contains("type is absent");
    assertThat(invalid("{'type':'object','properties':{'a':{'type':['string','null'],'x-mcp-header':'A'}}}"))
        .contains("type is not one string");
    assertThat(invalid("{'type':'object','properties':{'a':" + prop("String", "A") + "}}")).contains("\"String\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "My Region", "Region:Primary", "Région", "Region\\t1", "Region\\n", "a/b", "a@b", "(a)", "a,b", "a;b", "a=b", "\\\"q\\\"", "a{b}", "[a]", "a?b", "a\\\\b"})
  void theValueMustBeANonEmptyToken(String header) {
    String reason = invalid("{'type':'object','properties':{'value':" + prop("string", header) + "}}");
    assertThat(reason).containsAnyOf("is empty", "is not an RFC 9110 token");
    assertThat(reason).doesNotContain("\t", "\n"); // one log line, control characters escaped
  }

  @Test
  void everyTcharIsAllowed() {
    assertThat(valid("{'type':'object','properties':{'a':" + prop("string", "!#$%&*+-.^_`|~09azAZ") + "}}"))
        .extracting(Annotation::name)
        .containsExactly("!#$%&*+-.^_`|~09azAZ");
    assertThat(SchemaWalk.isToken("'")).isTrue();
  }

  @Test
  void theValueMustBeAString() {
    assertThat(invalid("{'type':'object','properties':{'a':{'type':'string','x-mcp-header':7}}}")).contains("is not a string");
    assertThat(invalid("{'type':'object','properties':{'a':{'type':'string','x-mcp-header':null}}}")).contains("is not a string");
    assertThat(invalid("{'type':'object','properties':{'a':{'type':'string','x-mcp-header':{'n':'A'}}}}")).contains("is not a string");
  }

  @Test
  void valuesAreUniqueIgnoringCase() {
    assertThat(invalid("{'type':'object','properties':{'f1':" + prop("string", "Region") + ",'f2':" + prop("string", "Region") + "}}"))
        .contains("repeats \"Region\"");
    assertThat(invalid("{'type':'object','properties':{'f1':" + prop("string", "MyField") + ",'f2':" + prop("string", "myfield") + "}}"))
        .contains("\"myfield\", repeats \"MyField\"");
    assertThat(invalid("{'type':'object','properties':{'f1':" + prop("string", "A") + ",'o':{'type':'object','properties':{'f2':"
            + prop("string", "a") + "}}}}"))
        .contains("repeats");
  }

  @Test
  void anEscapedMemberNameIsStillTheAnnotation() {
    assertThat(invalid("{'type':'object','items':{'type':'string','x\\u002dmcp-header':'A'}}")).contains("/items");
    assertThat(valid("{'type':'object','properties':{'a':{'type':'string','\\u0078-mcp-header':'A'}}}"))
        .extracting(Annotation::name)
        .containsExactly("A");
  }

  @Test
  void theWalkIsBoundedInDepth() {
    // n properties levels put the leaf schema inside 2n containers and its members inside 2n + 1:
    // 31 levels reach level 63, within 64
    assertThat(valid(nested(31, prop("string", "Deep")))).hasSize(1).first().satisfies(a -> assertThat(a.path()).hasSize(31));
    // 32 levels reach level 65
    assertThat(invalid(nested(32, prop("string", "Deep")))).contains("deeper than 64");
  }

  @Test
  void aDeepSchemaWithoutAnyAnnotationIsNotWalkedAndStaysValid() {
    assertThat(valid(nested(200, "{'type':'string'}"))).isEmpty();
    // but a backslash-u escape anywhere means it must be walked
    assertThat(invalid(nested(200, "{'type':'string','description':'caf\\u00e9'}"))).contains("deeper than 64");
  }

  @Test
  void theWalkIsBoundedInValues() {
    StringBuilder schema = new StringBuilder("{'type':'object','properties':{'a':" + prop("string", "A"));
    // the root, its type, the properties map, then 2 values per property (its schema and its type)
    for (int i = 0; i < 4_997; i++) {
      schema.append(",'p").append(i).append("':{'type':'string'}");
    }
    assertThat(valid(schema + "}}")).hasSize(1); // 3 + 2 * 4998 = 9,999 values
    for (int i = 4_997; i < 4_999; i++) {
      schema.append(",'p").append(i).append("':{'type':'string'}");
    }
    assertThat(invalid(schema + "}}")).contains("more than 10000 values");
  }

  private static String nested(int levels, String leaf) {
    String schema = leaf;
    for (int i = 0; i < levels; i++) {
      schema = "{'type':'object','properties':{'p" + i + "':" + schema + "}}";
    }
    return schema;
  }
}
