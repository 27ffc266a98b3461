#!/usr/bin/env bash
# Benchmark of healthrouter's push path on loopback (issue 4's targets): starts
# `healthrouter run` (release build) with an http_push source and a sqlite sink in a temp
# directory, and runs the load generator (scripts/bench-push.py) against it, twice, each time
# on a fresh daemon and state:
#   1. saturation: 4 clients post 5,000-sample gzip batches back to back;
#   2. paced: the same 4 clients offer 50,000 samples/s together (the target rate).
# Each run prints samples/s accepted durably, p50/p99 time to 200, visibility of each batch
# and of 1-sample probes in the sqlite sink after their 200, the sink's drain time and the
# generator's own CPU. The machine's load average is printed too: other work on the same
# cores moves every figure, so run it several times.
#
#   scripts/bench-push.sh [saturation|paced|both] [generator options, e.g. --batches 40]
#   HEALTHROUTER=path/to/healthrouter scripts/bench-push.sh          (use a given binary)
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=both
if [[ $# -gt 0 && "$1" != --* ]]; then MODE=$1; shift; fi
BIN=${HEALTHROUTER:-.build/release/healthrouter}
if [[ -z "${HEALTHROUTER:-}" ]]; then
  # Always brought up to date (a no-op when it is): an old binary left in .build would be measured.
  swift build -c release --product healthrouter >&2
fi
TOKEN=bench-$RANDOM$RANDOM
PID=
DIR=

stop_daemon() {
  if [[ -n "$PID" ]]; then
    kill -TERM "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
    PID=
  fi
  if [[ -n "$DIR" ]]; then rm -rf "$DIR"; DIR=; fi
}
trap stop_daemon EXIT

run() {  # run LABEL GENERATOR-OPTIONS...
  local label=$1; shift
  DIR=$(mktemp -d /tmp/bench-push.XXXXXX)
  local port=$(( 20000 + RANDOM % 40000 ))
  cat > "$DIR/config.yaml" <<YAML
state_directory: $DIR/state
sources:
  phone:
    type: http_push
    listen: 127.0.0.1:$port
    users:
      bench: { token: "\${BENCH_TOKEN}" }
sinks:
  local:
    type: sqlite
    path: $DIR/health.sqlite
routes:
  - types: ["*"]
    to: [local]
YAML
  BENCH_TOKEN=$TOKEN "$BIN" run --config "$DIR/config.yaml" > "$DIR/daemon.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 200); do
    curl -fs "http://127.0.0.1:$port/health" > /dev/null && break
    sleep 0.05
  done
  echo "== $label (load average before: $(cut -d' ' -f1-3 /proc/loadavg))"
  local cpu_before
  cpu_before=$(awk '{print $14 + $15}' "/proc/$PID/stat")
  python3 scripts/bench-push.py --port "$port" --token "$TOKEN" --sqlite "$DIR/health.sqlite" "$@"
  local ticks
  ticks=$(( $(awk '{print $14 + $15}' "/proc/$PID/stat") - cpu_before ))
  echo "daemon: CPU $(awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.1f s", t / hz}'), RSS $(ps -o rss= -p "$PID" | awk '{printf "%.0f MiB", $1/1024}')"
  stop_daemon
}

if [[ $MODE == saturation || $MODE == both ]]; then run "saturation: 4 clients back to back" --rate 0 "$@"; fi
if [[ $MODE == paced || $MODE == both ]]; then run "paced: 4 clients at 50,000 samples/s" --rate 50000 "$@"; fi
