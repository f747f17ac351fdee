#!/usr/bin/env bash
# Gossip and routing at 1,000 hubs. Real hubs (Netty, 127.0.0.1) spread over a few
# child JVMs, linked as a sparse random graph (each hub dials 3 hubs started before it; nobody
# advertises, so no mesh forms). Measures the time until every hub routes by shortest paths again
# after a hub dies and after a new hub joins (p50/max over --changes of each; target 3 s), and the
# gossip bytes per hub per minute in steady state and right after each change
# (io.traverse.bench.hub.GossipAtScale; --help lists the options). Uses both cores unless CPU= says
# otherwise. Bounded: each wait gives up after --give-up s (180), each child JVM ends itself after
# --max-seconds (1800) or when this JVM goes, and the child JVMs are killed on any failure.
#
#   bench/run-gossip.sh                                    # 1,000 hubs in 4 JVMs, 5 deaths + 5 joins
#   bench/run-gossip.sh --hubs 200 --groups 2 --changes 3 --steady-seconds 20   # a quick look
#   REBUILD=1 bench/run-gossip.sh                          # build the reactor first (no install)
set -euo pipefail
cd "$(dirname "$0")/.."
CPU="${CPU:-0,1}"
JAR=bench/target/benchmarks.jar
if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  mvn -q -B -o -DskipTests package -pl bench -am
fi
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); pinned to CPU $CPU; $(uptime | sed 's/.*load/load/')"
echo "# $(java -version 2>&1 | sed -n 1p); commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
exec taskset -c "$CPU" java -Xmx512m -Dorg.slf4j.simpleLogger.defaultLogLevel=error -cp "$JAR" io.traverse.bench.hub.GossipAtScale "$@"
