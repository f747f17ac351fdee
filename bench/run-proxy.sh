#!/usr/bin/env bash
# Routed throughput through one hub, with the client's node linked over a
# real HTTP proxy's CONNECT tunnel (tinyproxy, and squid if installed; child processes) against
# the same path over a plain TCP link; 1-byte RTT for information. Every process is pinned to one core.
#
#   bench/run-proxy.sh                       # 3 rounds, about 5 minutes
#   bench/run-proxy.sh --rounds 5 --only throughput
#   PROXY_CPU=1 bench/run-proxy.sh          # the proxy on CPU 1, everything else on CPU 0 (a proxy machine of its own)
#   REBUILD=1 bench/run-proxy.sh             # rebuild the jar first (package, not install)
#
# Needs tinyproxy (Debian package tinyproxy-bin); squid (Debian package squid) adds its two contenders. Per-run figures go to bench/results/proxy-rounds-<time>.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
CPU="${CPU:-0}"
JAR=bench/target/benchmarks.jar
[ -x /usr/bin/tinyproxy ] || { echo "run-proxy: tinyproxy is missing (apt-get install tinyproxy-bin)" >&2; exit 1; }
if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  mvn -q -B -o -DskipTests package -pl bench -am
fi
args=("$@")
if [[ " ${args[*]-} " != *" --csv "* ]]; then
  mkdir -p bench/results
  args+=(--csv "bench/results/proxy-rounds-$(date +%Y%m%d-%H%M%S).csv")
fi
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); pinned to CPU $CPU; proxy on CPU ${PROXY_CPU:-$CPU}"
echo "# $(java -version 2>&1 | sed -n 1p); $(tinyproxy -v 2>&1 | sed -n 1p)"
if [ -x /usr/sbin/squid ]; then echo "# $(/usr/sbin/squid -v 2>&1 | sed -n 1p)"; fi
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
exec taskset -c "$CPU" java -cp "$JAR" io.traverse.bench.ProxyRounds "${args[@]}"
