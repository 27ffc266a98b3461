#!/usr/bin/env bash
# Peak memory of one large push: starts `healthrouter run` (release build) with an http_push source
# and a sqlite sink, posts one body, and prints the daemon's peak RSS (VmHWM) before and after,
# its time, and the reply; each body on a fresh daemon and state. The bodies, made by python3:
#   hae      Health Auto Export: one step_count metric of POINTS points (date, qty, source)
#   pulso    the same readings as a Pulso /ingest array (the reference: the same samples)
#   skipped  HAE points whose dates cannot be read (nothing is stored; the log's examples walk)
#   tiny     HAE metrics without data, POINTS of them (each a JSON object, nothing stored)
#   nested   one Pulso sample whose metadata holds 2.6 million empty arrays (7.8 MB), posted
#            CONCURRENT times at once (default 32): what parsing many bodies at once takes
#
#   scripts/bench-push-memory.sh                   (POINTS=100000)
#   POINTS=300000 HEALTHROUTER=path/to/healthrouter scripts/bench-push-memory.sh
#   PORT=18050 scripts/bench-push-memory.sh        (a given loopback port; default: a free one)
#   BODIES="nested" CONCURRENT=16 scripts/bench-push-memory.sh   (some of the bodies only)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${HEALTHROUTER:-.build/release/healthrouter}
POINTS=${POINTS:-100000}
CONCURRENT=${CONCURRENT:-32}
BODIES=${BODIES:-hae pulso skipped tiny nested}
if [[ -z "${HEALTHROUTER:-}" ]]; then
  # Always brought up to date (a no-op when it is): an old binary left in .build would be measured.
  swift build -c release --product healthrouter >&2
fi
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
WORK=$(mktemp -d /tmp/bench-push-memory.XXXXXX)
PID=
stop_daemon() {
  if [[ -n "$PID" ]]; then kill -TERM "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; PID=; fi
}
trap 'stop_daemon; rm -rf "$WORK"' EXIT
TOKEN=bench-$RANDOM$RANDOM
PORT=${PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}

python3 - "$WORK" "$POINTS" <<'EOF'
import json, sys
work, n = sys.argv[1], int(sys.argv[2])
def when(i, sep):
    return "2025-%02d-%02d%s%02d:%02d:%02d" % (1 + i // 2678400 % 12, 1 + i // 86400 % 28, sep, i // 3600 % 24, i // 60 % 60, i % 60)
points = [{"qty": 1 + i % 20, "date": when(i, " ") + " +0000", "source": "iPhone"} for i in range(n)]
json.dump({"data": {"metrics": [{"name": "step_count", "units": "count", "data": points}]}}, open(work + "/hae.json", "w"))
samples = [{"uuid": "%08X-0000-4000-8000-000000000000" % i, "type": "stepCount", "start": when(i, "T") + "Z",
            "end": when(i, "T") + "Z", "value": 1 + i % 20, "unit": "count", "source": "iPhone"} for i in range(n)]
json.dump(samples, open(work + "/pulso.json", "w"))
bad = [{"qty": 1, "date": "garbage %d" % i} for i in range(n)]
json.dump({"data": {"metrics": [{"name": "step_count", "units": "count", "data": bad}]}}, open(work + "/skipped.json", "w"))
json.dump({"data": {"metrics": [{"name": "m%d" % i} for i in range(n)]}}, open(work + "/tiny.json", "w"))
open(work + "/nested.json", "w").write('[{"uuid": "N-1", "type": "heartRate", "start": "2026-07-06T08:00:00Z", '
    '"end": "2026-07-06T08:00:00Z", "value": 60, "unit": "count/min", "source": "W", "metadata": {"x": ['
    + ",".join(["[]"] * 2600000) + ']}}]')
EOF

echo "healthrouter push memory: $POINTS points a body, nested bodies $CONCURRENT at once, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %10s %14s %14s %9s  %s\n' body bytes "RSS before" "peak RSS" seconds reply
for body in $BODIES; do
  route=/hae; [[ $body == pulso || $body == nested ]] && route=/ingest
  copies=1; [[ $body == nested ]] && copies=$CONCURRENT
  rm -rf "$WORK/state"
  cat >"$WORK/healthrouter.yaml" <<EOF
state_directory: $WORK/state
sources:
  phone:
    type: http_push
    listen: 127.0.0.1:$PORT
    users:
      bench:
        token: $TOKEN
sinks:
  local:
    type: sqlite
    path: $WORK/state/health.sqlite
routes:
  - types: ["*"]
    to: [local]
EOF
  "$BIN" run --config "$WORK/healthrouter.yaml" -q >"$WORK/daemon.log" 2>&1 &
  PID=$!
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/health" && break; sleep 0.1; done
  before=$(awk '/VmRSS/ {print $2}' "/proc/$PID/status")
  start=$(date +%s.%N)
  for copy in $(seq "$copies"); do
    curl -s -o "$WORK/reply-$copy" -H "Authorization: Bearer $TOKEN" --data-binary "@$WORK/$body.json" \
      "http://127.0.0.1:$PORT$route" &
  done
  wait $(jobs -p | grep -vx "$PID")
  reply=$(for file in "$WORK"/reply-*; do cat "$file"; echo; done | sort | uniq -c | sed 's/^ *//' | paste -sd ' ')
  rm -f "$WORK"/reply-*
  end=$(date +%s.%N)
  peak=$(awk '/VmHWM/ {print $2}' "/proc/$PID/status")
  printf '%-8s %10d %11d kB %11d kB %9.2f  %s\n' "$body" "$(stat -c %s "$WORK/$body.json")" "$before" "$peak" \
    "$(echo "$end - $start" | bc)" "$reply"
  stop_daemon
done
