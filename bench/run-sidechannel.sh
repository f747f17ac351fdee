#!/usr/bin/env bash
# Side-channel round trips (request -> echo handler -> answer) between two nodes through one hub
# and through two hubs, each hub a JVM of its own, everything pinned to one core (CPU=1 picks
# another; CPU=all does not pin).
#
#   bench/run-sidechannel.sh                          # 3 runs of 3000 requests after 3000 warm-up
#   bench/run-sidechannel.sh --hubs 1 --runs 5
#   REBUILD=1 bench/run-sidechannel.sh                # rebuild the jar first
set -euo pipefail
cd "$(dirname "$0")/.."
CPU="${CPU:-0}"
JAR=bench/target/benchmarks.jar
if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  mvn -q -B -o -DskipTests package -pl bench -am
fi
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); pinned to CPU $CPU"
echo "# $(java -version 2>&1 | sed -n 1p)"
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
pin=(taskset -c "$CPU")
[[ "$CPU" == all ]] && pin=()
exec "${pin[@]}" java -Xmx512m -Dorg.slf4j.simpleLogger.defaultLogLevel=error -cp "$JAR" io.traverse.bench.SideChannelRounds "$@"
