#!/bin/sh
# Relay end-to-end benchmark (see docs/performance.md). Builds what it needs, then runs
# dev.mcpstdio.bench.RelayBenchmark with the test classpath. Arguments pass through, e.g.
#   bench/relay.sh --sse --startups 30 --seconds 10
set -eu
cd "$(dirname "$0")/.."
./mcp-stdio --version 2>/dev/null || true            # builds the jar and the AOT cache if needed
mvn -q -o test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.classpath >&2 \
  || mvn -q test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.classpath >&2
JAVA="$(./mcp-stdio --print-java-home)/bin/java"
exec "$JAVA" -cp "target/test-classes:target/classes:$(cat target/bench.classpath)" dev.mcpstdio.bench.RelayBenchmark "$@"
