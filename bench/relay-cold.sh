#!/bin/sh
# The relay as a user meets it (docs/performance.md, issue 15): a Node host on a fresh relay's
# stdio per run, the TypeScript SDK's Streamable HTTP server upstream (event-stream replies), the
# first calls in buckets beside the same calls made directly, CPU per call and RSS from /proc.
#   bench/relay-cold.sh                 # 3 runs of 2000 calls, a Markdown table
#   bench/relay-cold.sh --runs 5 --calls 5000 --json
set -eu
cd "$(dirname "$0")/.."
command -v node >/dev/null 2>&1 || { echo "bench/relay-cold.sh needs node on PATH" >&2; exit 1; }
./mcp-stdio --version >/dev/null 2>&1 || true     # builds the jar and the AOT cache if needed
mvn -q -o test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.classpath >&2 2>/dev/null \
  || mvn -q test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.classpath >&2
JAVA="$(./mcp-stdio --print-java-home)/bin/java"
exec "$JAVA" -cp "target/test-classes:target/classes:$(cat target/bench.classpath)" -Dmcpstdio.basedir="$PWD" \
  dev.mcpstdio.bench.ColdRelayBenchmark "$@"
