#!/usr/bin/env bash
# Benchmark of healthrouter's push path on loopback: starts `healthrouter run` (release build)
# with an http_push source and a sqlite sink in a temp directory, runs the load generator
# (scripts/bench-push.py: 4 concurrent clients posting 5,000-sample gzip Pulso batches), and
# prints samples/s accepted durably, p99 time to 200, and push-to-sqlite visibility latency.
#
#   scripts/bench-push.sh [--clients N] [--batches N] [--size N]   (options go to the generator)
#   HEALTHROUTER=path/to/healthrouter scripts/bench-push.sh          (use a given binary)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${HEALTHROUTER:-.build/release/healthrouter}
if [[ ! -x "$BIN" ]]; then
  echo "building the release binary ..." >&2
  swift build -c release --product healthrouter >&2
fi
DIR=$(mktemp -d /tmp/bench-push.XXXXXX)
PORT=$(( 20000 + RANDOM % 40000 ))
TOKEN=bench-$RANDOM$RANDOM
cat > "$DIR/config.yaml" <<YAML
state_directory: $DIR/state
sources:
  phone:
    type: http_push
    listen: 127.0.0.1:$PORT
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
trap 'kill -TERM $PID 2>/dev/null || true; wait $PID 2>/dev/null || true; rm -rf "$DIR"' EXIT
for _ in $(seq 1 200); do
  curl -fs "http://127.0.0.1:$PORT/health" > /dev/null && break
  sleep 0.05
done
python3 scripts/bench-push.py --port "$PORT" --token "$TOKEN" --sqlite "$DIR/health.sqlite" "$@"
echo "daemon RSS: $(ps -o rss= -p $PID | awk '{printf "%.0f MiB", $1/1024}')"
