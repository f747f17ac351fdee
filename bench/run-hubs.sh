#!/usr/bin/env bash
# Hub scenarios: convergence of 100 in-process hubs, route withdrawal after a hub hangs
# (SIGSTOP), side-channel round trips across 3 hubs, one hub with 1,000 nodes. Pinned to one core
# like the other benchmarks (CPU=1 picks another; CPU=0,1 gives both, as the 100-hub figure uses).
#
#   bench/run-hubs.sh                                  # everything, defaults
#   bench/run-hubs.sh --only withdrawal --rounds 3 --keepalive 500
#   REBUILD=1 bench/run-hubs.sh                        # rebuild core, hub and bench first
#
# Options are passed to io.traverse.bench.hub.HubScenarios (--help lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
CPU="${CPU:-0}"
JAR=bench/target/benchmarks.jar
if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  mvn -q -B -DskipTests install -pl core,hub,bench -am
fi
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); pinned to CPU $CPU"
echo "# $(java -version 2>&1 | sed -n 1p)"
exec taskset -c "$CPU" java -Xmx4g -Dorg.slf4j.simpleLogger.defaultLogLevel=error -cp "$JAR" io.traverse.bench.hub.HubScenarios "$@"
