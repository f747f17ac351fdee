#!/usr/bin/env bash
# Relay benchmarks: plain loopback TCP vs a socat relay vs routed Traverse connections
# through 1, 2 and 3 hubs (each hub its own JVM), throughput and 1-byte RTT, contenders rotated
# round by round, with every process (benchmark forks, hubs, socat) pinned to one core.
#
#   bench/run-routed.sh                         # 5 rounds, about 15 minutes
#   bench/run-routed.sh --rounds 3 --only rtt
#   CPU=1 bench/run-routed.sh                   # pin to another core
#   REBUILD=1 bench/run-routed.sh               # rebuild first
#
# Needs socat (Debian package socat). With gcc it also builds and measures the floor, minimal C
# relays (bench/native/epoll-relay.c, contenders c-relay-1..3).
# Per-run figures go to bench/results/routed-rounds-<time>.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
CPU="${CPU:-0}"
JAR=bench/target/benchmarks.jar
command -v socat >/dev/null || { echo "run-routed: socat is missing (apt-get install socat)" >&2; exit 1; }
if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  mvn -q -B -DskipTests install -pl core,direct,routed,hub,bench -am
fi
if command -v gcc >/dev/null; then
  gcc -O2 -Wall -o bench/target/epoll-relay bench/native/epoll-relay.c
else
  echo "run-routed: gcc is missing, so the C relay floor is not measured" >&2
fi
args=("$@")
if [[ " ${args[*]-} " != *" --csv "* ]]; then
  mkdir -p bench/results
  args+=(--csv "bench/results/routed-rounds-$(date +%Y%m%d-%H%M%S).csv")
fi
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); pinned to CPU $CPU"
echo "# $(java -version 2>&1 | sed -n 1p); $(socat -V 2>/dev/null | sed -n 2p)"
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
exec taskset -c "$CPU" java -cp "$JAR" io.traverse.bench.RelayRounds "${args[@]}"
