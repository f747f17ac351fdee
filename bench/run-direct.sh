#!/usr/bin/env bash
# Plain loopback sockets vs direct Traverse connections (setup, throughput,
# 1-byte RTT), run alternately round by round with every process pinned to one core.
#
#   bench/run-direct.sh                      # 7 rounds, about 8 minutes
#   bench/run-direct.sh --rounds 3 --only rtt
#   CPU=1 bench/run-direct.sh                # pin to another core
#   REBUILD=1 bench/run-direct.sh            # rebuild core, direct and bench first
#
# Options are passed to io.traverse.bench.DirectRounds (--help lists them). Per-run figures go to
# bench/results/direct-rounds-<time>.csv unless --csv is given.
set -euo pipefail
cd "$(dirname "$0")/.."
CPU="${CPU:-0}"
JAR=bench/target/benchmarks.jar
if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  mvn -q -B -DskipTests install -pl core,direct,bench -am
fi
args=("$@")
if [[ " ${args[*]-} " != *" --csv "* ]]; then
  mkdir -p bench/results
  args+=(--csv "bench/results/direct-rounds-$(date +%Y%m%d-%H%M%S).csv")
fi
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); pinned to CPU $CPU"
echo "# $(java -version 2>&1 | sed -n 1p)"
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
exec taskset -c "$CPU" java -cp "$JAR" io.traverse.bench.DirectRounds "${args[@]}"
