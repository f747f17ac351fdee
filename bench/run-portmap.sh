#!/usr/bin/env bash
# Throughput through a port mapped on a NAT router (miniupnpd in a testbed router)
# against a direct connection between the same two hosts. Markdown on stdout, progress on stderr.
# Needs root (namespaces, nft) and miniupnpd (Debian miniupnpd-nftables). Not pinned: 3 JVMs.
#
#   bench/run-portmap.sh                          # UPnP IGD, 10 rounds of 64 MiB
#   bench/run-portmap.sh --protocol pcp           # or natpmp
#   REBUILD=1 bench/run-portmap.sh                # rebuild first
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=bench/target/benchmarks.jar
if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  mvn -q -B -o -DskipTests package -pl bench -am
fi
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(uname -r)"
echo "# $(java -version 2>&1 | sed -n 1p); commit $(git rev-parse --short HEAD)"
exec java -Xmx512m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAR" \
  io.traverse.bench.portmap.MappedThroughput "$@"
