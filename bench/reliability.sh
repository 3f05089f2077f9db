#!/bin/sh
# Reliability suite (see docs/reliability.md): the load and fault cases as benchmarks, against the
# real launcher. Builds what it needs, then runs one case with the test classpath, e.g.
#   bench/reliability.sh relay --calls 10000 --delay-ms 300
#   bench/reliability.sh serve-clients --slow 32 --max-connections 128
#   bench/reliability.sh serve-children --sessions 5
set -eu
cd "$(dirname "$0")/.."
./mcp-stdio --version >/dev/null 2>&1 || true          # builds the jar and the AOT cache if needed
mvn -q -o test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.classpath >&2 \
  || mvn -q test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.classpath >&2
JAVA="$(./mcp-stdio --print-java-home)/bin/java"
case "${1:-}" in
  relay) shift; main=dev.mcpstdio.reliability.RelayLoad ;;
  serve-clients) shift; main=dev.mcpstdio.reliability.ServeClients ;;
  serve-children) shift; main=dev.mcpstdio.reliability.ServeChildren ;;
  *) echo "usage: bench/reliability.sh relay|serve-clients|serve-children [options]" >&2; exit 2 ;;
esac
exec "$JAVA" -cp "target/test-classes:target/classes:$(cat target/bench.classpath)" "$main" "$@"
