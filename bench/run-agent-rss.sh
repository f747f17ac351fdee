#!/usr/bin/env bash
# Resident memory of one `traverse agent` carrying 20 exposes and 20 forwards, against
# one `traverse expose` and one `traverse forward` process. Everything on 127.0.0.1 with one hub;
# each forward of the agent goes to one of its exposes, each expose to one of 20 local echo ports
# (one Python process). RSS is read with `ps -o rss=` (KiB) after the JVMs settle: first idle, then
# with one live connection per forward (1 MiB echoed each way, the connection kept open). The agent
# serves its metrics (--metrics-port), scraped once at the end.
# JVM flags: the defaults, as `bin/traverse` runs it (JAVA_OPTS adds any).
#
#   bench/run-agent-rss.sh            # builds cli/target/traverse.jar if missing
#   REBUILD=1 bench/run-agent-rss.sh
#   JAVA_OPTS='-Xmx64m' bench/run-agent-rss.sh
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=cli/target/traverse.jar
if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  mvn -q -B -o -DskipTests package -pl cli -am
fi
N="${N:-20}"
SETTLE="${SETTLE:-15}"
HUB_PORT="${HUB_PORT:-27100}"
ECHO_BASE="${ECHO_BASE:-27200}"
FWD_BASE="${FWD_BASE:-27300}"
METRICS_PORT="${METRICS_PORT:-27400}"
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [[ "${KEEP:-0}" == 1 ]] || rm -rf "$work"
}
trap cleanup EXIT
run() {  # run NAME ARGS...: a traverse process, its output in $work/NAME.log, its pid in $started
  local name=$1; shift
  # shellcheck disable=SC2086
  java ${JAVA_OPTS:-} -jar "$JAR" "$@" >"$work/$name.log" 2>&1 &
  started=$!
  pids+=("$started")
}
rss() { ps -o rss= -p "$1" | tr -d " "; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }

echo "# $(nproc) CPUs, $(free -g | awk '/Mem:/ {print $2}') GiB, $(java -version 2>&1 | sed -n 1p); JAVA_OPTS='${JAVA_OPTS:-}'"
echo "secret" >"$work/token"
chmod 600 "$work/token"

python3 - "$ECHO_BASE" "$N" >"$work/echo.log" 2>&1 <<'PY' &
import asyncio, sys
base, n = int(sys.argv[1]), int(sys.argv[2])
async def echo(reader, writer):
    while data := await reader.read(65536):
        writer.write(data)
        await writer.drain()
    writer.close()
async def main():
    servers = [await asyncio.start_server(echo, "127.0.0.1", base + i) for i in range(n)]
    await asyncio.gather(*(s.serve_forever() for s in servers))
asyncio.run(main())
PY
pids+=($!)

run hub hub --bind 127.0.0.1 --port "$HUB_PORT" --advertise none --token-file "$work/token" --http-port -1 --discovery-port -1
hub=$started
{
  echo "traverse.hubs = 127.0.0.1:$HUB_PORT"
  echo "token-file = token"
  echo "traverse.discovery = false"
  for i in $(seq 0 $((N - 1))); do
    echo "expose  svc-$i $((ECHO_BASE + i)) name=rss-svc-$i port=$((1000 + i))"
  done
  for i in $(seq 0 $((N - 1))); do
    echo "forward fwd-$i $((FWD_BASE + i)) rss-svc-$i:$((1000 + i))"
  done
} >"$work/agent.conf"
sleep 3
run agent agent --config "$work/agent.conf" --metrics-port "$METRICS_PORT"
agent=$started
run expose expose "$ECHO_BASE" --name rss-single --port 81 --hub "127.0.0.1:$HUB_PORT" --token-file "$work/token"
single_expose=$started
run forward forward $((FWD_BASE + N)) rss-single:81 --hub "127.0.0.1:$HUB_PORT" --token-file "$work/token"
single_forward=$started
sleep "$SETTLE"
for p in agent expose forward; do
  grep -qE '^(agent: |exposing |forwarding )' "$work/$p.log" || { echo "$p did not start:"; cat "$work/$p.log"; exit 1; }
done
echo "idle (after ${SETTLE} s):"
echo "  hub                            $(mib "$(rss "$hub")")"
echo "  agent, $N exposes + $N forwards  $(mib "$(rss "$agent")")"
echo "  one traverse expose            $(mib "$(rss "$single_expose")")"
echo "  one traverse forward           $(mib "$(rss "$single_forward")")"

# One live connection per forward (and one through the single forward): 1 MiB echoed, then held open.
python3 - "$FWD_BASE" "$N" "$work/held" <<'PY' &
import hashlib, os, socket, sys, time
base, n, flag = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
held = []
for i in range(n + 1):
    s = socket.create_connection(("127.0.0.1", base + i), timeout=30)
    data = os.urandom(1 << 20)
    s.sendall(data)
    got = b""
    while len(got) < len(data):
        chunk = s.recv(65536)
        if not chunk:
            raise SystemExit(f"port {base + i}: EOF after {len(got)} bytes")
        got += chunk
    if hashlib.sha256(got).digest() != hashlib.sha256(data).digest():
        raise SystemExit(f"port {base + i}: echoed data differs")
    held.append(s)
open(flag, "w").close()
time.sleep(3600)
PY
pids+=($!)
for _ in $(seq 1 120); do [[ -f "$work/held" ]] && break; sleep 0.5; done
[[ -f "$work/held" ]] || { echo "the live connections did not come up"; tail -5 "$work/agent.log"; exit 1; }
sleep "$SETTLE"
echo "with one live connection per forward (1 MiB echoed each way, held open):"
echo "  agent, $N exposes + $N forwards  $(mib "$(rss "$agent")")  ($((N * 2)) connections piped)"
echo "  one traverse expose            $(mib "$(rss "$single_expose")")"
echo "  one traverse forward           $(mib "$(rss "$single_forward")")"
echo "  threads: agent $(ls /proc/"$agent"/task | wc -l), expose $(ls /proc/"$single_expose"/task | wc -l)"
echo "  scraped: $(curl -s "http://127.0.0.1:$METRICS_PORT/metrics" | grep -c '^traverse_agent_') agent series, bytes from clients $(curl -s "http://127.0.0.1:$METRICS_PORT/metrics" | awk '/^traverse_agent_piped_bytes_total\{direction="from_client",kind="forward"/ {s += $2} END {printf "%d", s}') through the forwards"
