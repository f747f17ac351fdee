#!/usr/bin/env bash
# The paper's six sites (Table 2) on network namespaces with real NAT and firewalls, and
# (not the paper's, marked * in the tables) a site whose only way out is an HTTP proxy;
# every ordered pair of the sites' compute nodes, plain sockets against Traverse (module, cold
# and cached setup, round trips, 16 MiB with SHA-256). Markdown on stdout, progress on stderr.
# Needs root (namespaces, nft), openssh-server (Hiroshi is reached only through its sshd; keys
# are made per run), tinyproxy (tinyproxy-bin) and, for --latency, gcc. Not pinned: 13 JVMs share the machine.
#
#   bench/run-matrix.sh                                  # the full run in docs/benchmarks.md
#   bench/run-matrix.sh --json /tmp/matrix.json          # also JSON
#   bench/run-matrix.sh --latency wan                    # with the paper's round trips (Table 4) between the sites
#   bench/run-matrix.sh --network everyday --latency wan # the everyday network of NATs, with access latencies
#   bench/run-matrix.sh --bytes 1048576 --rounds 50 --cold-parallel 3   # scaled down, as CI
#   bench/run-matrix.sh --sites das3-v,rockstar,desktop  # some sites only
#   bench/run-matrix.sh --sites das3-v,das3-d,rockstar,grid5000,hiroshi,desktop   # the paper's six alone
#   REBUILD=1 bench/run-matrix.sh                        # rebuild first
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=bench/target/benchmarks.jar
if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  mvn -q -B -o -DskipTests package -pl bench -am
fi
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(uname -r)"
echo "# $(java -version 2>&1 | sed -n 1p); commit $(git rev-parse --short HEAD)"
exec java -Xmx512m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAR" \
  io.traverse.bench.matrix.ConnectionMatrix "$@"
