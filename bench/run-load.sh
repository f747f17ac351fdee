#!/usr/bin/env bash
# The hub under load and churn, after CastGate's load and stress tests. On loopback: one hub JVM,
# one server JVM (server nodes that hash each relayed stream to EOF and answer length + SHA-256, echoing
# each chunk's timestamp), client JVMs of emulated nodes (Traverse.start each, traverse.modules=routed),
# every connection writing seeded random bytes at a steady pace (--chunk every --interval-ms) and verified
# end to end after half-close. A progress line every --progress-seconds, a summary block for
# docs/benchmarks.md at the end. Every run is bounded (--deadline-seconds) and kills its children.
#
#   bench/run-load.sh --mode ramp                       # +100 connections every 10 s until it breaks (max 2000)
#   bench/run-load.sh --mode ramp --step 200 --max-connections 3000 --p99-limit-ms 500
#   bench/run-load.sh --mode churn                      # mean 1000 held, mean life 20 s, SIGKILL of a JVM with 500
#   bench/run-load.sh --mode churn --connections 2000 --burst 1000 --interval-ms 2000 --lifetime-ms 30000
#   bench/run-load.sh --mode restart --connections 200 --interval-ms 200   # SIGKILL the hub half-way, restart it on its port
#   bench/run-load.sh --mode ramp --hubs 3              # through three hub JVMs in a line (clients on the first, server on the last)
#   bench/run-load.sh --help                            # every option and its default
#   REBUILD=1 bench/run-load.sh ...                     # rebuild the bench jar from the reactor first
#   BENCH_CHILD_JVM_OPTS="-Xlog:gc:file=/tmp/gc-%n.log" bench/run-load.sh ...   # more options for every child JVM (%n: its name)
#   JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java BENCH_CHILD_JVM_OPTS=-Dbench.load.virtualThreads=true bench/run-load.sh ...
#                                                       # every JVM on Java 25, the harness's connections on virtual threads
#   HUB_JAVA=/usr/lib/jvm/java-17-openjdk-amd64/bin/java ...   # the hub JVMs on this Java, whatever the harness runs on
#
# Main options (defaults in brackets):
#   --transport routed|plain [routed]  (plain: the control run, same harness on plain loopback sockets)
#   --mode ramp|churn|restart [ramp]   --hubs N in a line [1]   --clients N client JVMs [2]   --nodes N nodes per client JVM [10]
#   --server-nodes N [1]       --chunk BYTES [4096]          --interval-ms MS [50]   --read-timeout-ms MS [30000]
#   ramp:  --step N [100] --step-seconds S [10] --max-connections N [2000] --p99-limit-ms MS [1000] --late-limit F [0.25]
#   churn: --connections M mean held [1000] --lifetime-ms D mean [20000] --burst B killed at once [500]
#          --burst-nodes N [10] --burst-end kill|drop [kill] --seconds S after the ramp [60] --ramp-seconds S [20]
#          (drop: the burst JVM's hub links fall silent through an nftables table of the run's own, loopback
#          and those ports only, removed at the end and on exit; needs root and nft)
#   --hub-heap [1g] --hub-io-threads N (0: the hub's default) [0] --client-heap [1g] --progress-seconds [5]
#   --deadline-seconds [900]
#   restart: uses --connections, --lifetime-ms, --seconds and --ramp-seconds as churn does (no burst)
# Exit code: churn runs exit 1 when a surviving stream lost, reordered or reset anything; restart runs
# when anything but a reset (a hang to the read timeout, a length or digest mismatch) happened.
# Not pinned to a core: the hub, the server and the clients share the machine's CPUs (the summary names the load).
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=bench/target/benchmarks.jar
if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  # package, never install: the reactor builds the modules this jar needs without touching ~/.m2
  mvn -q -B -DskipTests package -pl bench -am
fi
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(uptime)"
JAVA="${JAVA:-java}"
echo "# $("$JAVA" -version 2>&1 | sed -n 1p)"
exec "$JAVA" -Xmx512m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAR" io.traverse.bench.load.LoadRun "$@"
