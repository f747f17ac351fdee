#!/usr/bin/env bash
# Floods and slowloris against a hub in its own JVM, on loopback only (docs/benchmarks.md, "Floods and
# slowloris against a hub"): idle connections to the link port at a steady rate from eight loopback
# source addresses, a burst from one address, clients that trickle a preamble or an HTTP request head a
# byte every 100 ms to both ports, idle connections to the HTTP port; meanwhile two real nodes link,
# bind a name and relay 1 MiB (length + SHA-256 checked). Prints the hub process's peak file descriptors
# and resident memory, what it cut, and the real nodes' times.
#
#   bench/run-flood.sh                                   # 20,000 idle at 2,000/s, 200 slow clients of each kind
#   bench/run-flood.sh --idle 50000 --rate 5000
#   bench/run-flood.sh --max-handshakes 1000000 --max-per-address 1000000 --hub-fd-limit 10000
#                                                        # the hub without these bounds, with half the flood's descriptors
#   REBUILD=1 bench/run-flood.sh ...                     # rebuild the bench jar from the reactor first
#
# Options (defaults): --idle [20000] --rate [2000] --slow [200] --http [2000] --deadline-ms [10000]
#   --max-handshakes [1024] --max-per-address [256] --max-http [256] --hub-fd-limit [0: as inherited]
#   --nodes-after-ms [1000] (when the real nodes start, after the flood)
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=bench/target/benchmarks.jar
if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  mvn -q -B -o -DskipTests -Djacoco.skip=true package -pl bench -am
fi
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), open files limit $(ulimit -n)"
echo "# $(java -version 2>&1 | sed -n 1p)"
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
exec java -Xmx512m -Dorg.slf4j.simpleLogger.defaultLogLevel=error -cp "$JAR" io.traverse.bench.load.FloodRun "$@"
