#!/usr/bin/env bash
# Long-poll event latency, RobustTrav's measurement (papers/robusttrav-longpolling.txt
# §5.1): 50 nodes whose hub link is a long-poll session each receive one sequence-numbered,
# timestamped event every 30 ms from a TCP-linked publisher, through one hub (a child JVM) on
# loopback; losses, order violations, min/avg/p99/max latency per point.
#
#   bench/run-latency.sh                       # the headline, then the paper's full sweep (Table 2:
#                                              # 5 parameters x 10 values), 10,000 events per client
#                                              # and point, as the paper ran it: about 5 hours
#   EVENTS=300 bench/run-latency.sh            # the same sweep with 300 events per point (~20 min)
#   bench/run-latency.sh --sweep regenerate    # one parameter's Table 2 values (extra arguments go
#   bench/run-latency.sh --sweep batch-size=1,5 --events 1000     # to EventLatency, after ours)
#   bench/run-latency.sh --tcp-clients         # the routed baseline: clients linked by TCP
#   CPU=all (default) | CPU=1                  # pin everything (hub, nodes) to one core
#   REBUILD=1 bench/run-latency.sh             # rebuild the jar first
#
# Rows go to stdout and to bench/results/latency-<time>.csv as each point ends.
set -euo pipefail
cd "$(dirname "$0")/.."
CPU="${CPU:-all}"
EVENTS="${EVENTS:-10000}"
JAR=bench/target/benchmarks.jar
if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  mvn -q -B -o -DskipTests package -pl bench -am
fi
mkdir -p bench/results
args=(--clients 50 --events "$EVENTS" --interval 30 --warmup 300 --csv "bench/results/latency-$(date +%Y%m%d-%H%M%S).csv")
if [[ $# -eq 0 ]]; then
  args+=(--sweep defaults --sweep paper)
fi
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); pinned to CPU $CPU"
echo "# $(java -version 2>&1 | sed -n 1p); commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
pin=(taskset -c "$CPU")
[[ "$CPU" == all ]] && pin=()
exec "${pin[@]}" java -Xmx1g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAR" io.traverse.bench.longpoll.EventLatency \
  "${args[@]}" "$@"
