#!/usr/bin/env bash
# Splice between a NAT whose stack resets unsolicited SYNs (lab) and a home NAT behind
# a carrier NAT that resets too, on namespaces with real kernel NAT, the internet's routers played
# by the testbed's user-space switch (router hops, optional WAN latency). Needs root and gcc. Not
# pinned: three JVMs (hub and two nodes) and the switch share the machine.
#
#   bench/run-splice-reset.sh                        # microsecond latency, 8 router hops, 100 connects a way
#   bench/run-splice-reset.sh --latency wan          # lab 3 ms, home 12 ms, hub 1 ms one way
#   bench/run-splice-reset.sh --hops 0               # two NATs with no router between them
#   REBUILD=1 bench/run-splice-reset.sh              # rebuild first
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=bench/target/benchmarks.jar
if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  mvn -q -B -o -DskipTests package -pl bench -am
fi
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(uname -r)"
echo "# $(java -version 2>&1 | sed -n 1p); commit $(git rev-parse --short HEAD)"
exec java -Xmx512m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAR" \
  io.traverse.bench.splice.SpliceWhereBothReset "$@"
