#!/usr/bin/env bash
# The splice module between two port-keeping NATs (one firewall rejects, one drops)
# and against a port-randomising NAT, on namespaces with real kernel NAT. Needs root. Not pinned:
# five JVMs (hub and four nodes) share the machine.
#
#   bench/run-splice.sh                          # the run in docs/benchmarks.md
#   bench/run-splice.sh --attempts 20 --big 67108864
#   REBUILD=1 bench/run-splice.sh                # rebuild first
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=bench/target/benchmarks.jar
if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  mvn -q -B -o -DskipTests package -pl bench -am
fi
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(uname -r)"
echo "# $(java -version 2>&1 | sed -n 1p); commit $(git rev-parse --short HEAD)"
exec java -Xmx512m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAR" \
  io.traverse.bench.splice.SpliceBetweenNats "$@"
