#!/usr/bin/env bash
# Connection setup as a user of the drop-in factories gets it. Connect +
# first byte, plain `new Socket(host, port)` against `new TraverseSocketFactory().createSocket(host,
# port)` to a default-configuration server in another process (every interface), against nodes
# bound to 127.0.0.1 only, and against plain TCP plus one request and reply (the floor of any
# handshake); rounds interleaved; unpinned, as applications run (the headline).
#
#   bench/run-dropin.sh                       # 7 rounds x 2,000 connects per contender, after 4,000 warm-up
#   bench/run-dropin.sh --rounds 3 --only plain,default
#   CPU=0 bench/run-dropin.sh                 # client and server pinned to one core (the second line)
#   REBUILD=1 bench/run-dropin.sh             # rebuild core, direct and bench first
#   PRETOUCH=1 bench/run-dropin.sh            # both JVMs touch their whole heap at start (steady state)
#   JAVA_OPTS='-XX:StartFlightRecording=filename=/tmp/dropin.jfr' bench/run-dropin.sh   # profile the client
set -euo pipefail
cd "$(dirname "$0")/.."
CPU="${CPU:-all}"
JAR=bench/target/benchmarks.jar
if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  mvn -q -B -o -DskipTests package -pl bench -am
fi
echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); CPU=$CPU (all: unpinned)"
echo "# $(java -version 2>&1 | sed -n 1p)"
echo "# interfaces: $(ip -br addr | awk '$2 != "DOWN" {$2=""; print}' | tr -s ' ' | paste -sd ';')"
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck disable=SC2086
if [[ "$CPU" == all ]]; then PIN=(); else PIN=(taskset -c "$CPU"); fi
# A fresh JVM's heap pages are mapped when first written, and on this kind of virtual machine a
# first write costs about 19 us a page: until a run has written its whole heap, every allocation
# pays for its pages. PRETOUCH=1 writes both heaps at start, as a long-running process has.
TOUCH=()
if [[ "${PRETOUCH:-0}" == 1 ]]; then TOUCH=(-XX:+AlwaysPreTouch -Ddropin.server.options=-XX:+AlwaysPreTouch); fi
exec ${PIN[@]+"${PIN[@]}"} java -Xms512m -Xmx512m ${TOUCH[@]+"${TOUCH[@]}"} ${JAVA_OPTS:-} \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAR" io.traverse.bench.DropInSetupRounds "$@"
