#!/usr/bin/env bash
# First connection to a node behind a silently dropping (simulated) firewall, won by the
# reverse module. Pinned to one core like the other benchmarks (CPU=1 picks another; CPU=all does
# not pin).
#
#   bench/run-reverse.sh                      # 30 rounds, drop
#   bench/run-reverse.sh --rule deny          # a refusing firewall instead
#   CPU=all bench/run-reverse.sh --rule deny --cached --rounds 2000   # a settled node's cached reverse
#   CPU=all bench/run-reverse.sh --rule none --cached --rounds 2000   # the control: a cached direct connection
#   REBUILD=1 bench/run-reverse.sh            # rebuild first
set -euo pipefail
cd "$(dirname "$0")/.."
CPU="${CPU:-0}"
JAR=bench/target/benchmarks.jar
if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  mvn -q -B -DskipTests install -pl core,direct,reverse,hub,bench -am
fi
pin=(taskset -c "$CPU")
[[ "$CPU" == all ]] && pin=()
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); pinned to CPU $CPU"
echo "# $(java -version 2>&1 | sed -n 1p)"
exec "${pin[@]}" java -Xmx1g -Dorg.slf4j.simpleLogger.defaultLogLevel=error -cp "$JAR" \
  io.traverse.bench.reverse.FirstConnectionBehindFirewall "$@"
