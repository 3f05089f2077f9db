#!/bin/sh
# serve end-to-end benchmark (see docs/performance.md). Builds what it needs, then runs
# dev.mcpstdio.bench.ServeBenchmark with the test classpath against `./mcp-stdio serve` in front
# of a Node echo server. Arguments pass through, e.g.
#   bench/serve.sh --seconds 10 --json
#   bench/serve.sh --era both           # the 2025 and 2026 eras side by side
set -eu
cd "$(dirname "$0")/.."
command -v node >/dev/null 2>&1 || { echo "bench/serve.sh needs node on PATH" >&2; exit 1; }
./mcp-stdio --version 2>/dev/null || true            # builds the jar and the AOT cache if needed
mvn -q -o test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.classpath >&2 \
  || mvn -q test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.classpath >&2
JAVA="$(./mcp-stdio --print-java-home)/bin/java"
exec "$JAVA" -cp "target/test-classes:target/classes:$(cat target/bench.classpath)" dev.mcpstdio.bench.ServeBenchmark "$@"
