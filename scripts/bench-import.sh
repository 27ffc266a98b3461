#!/usr/bin/env bash
# Import benchmark (issue: the spine). Generates a 1,000,000-Record export.xml with a realistic
# mix, then measures in the same run, on the same file:
#   - xmllint --stream --noout               (the floor: libxml2 reading the file, nothing else)
#   - healthrouter import into the embedded default (journal + SQLite + NDJSON), fresh state
#   - the same import again (re-import: must write no rows)
#   - healthkit-to-sqlite --xml (PyPI, in a venv this script makes)
# and prints wall times, ratios and peak RSS.
#   RECORDS=200000 scripts/bench-import.sh     (a smaller run)
set -euo pipefail
cd "$(dirname "$0")/.."
records="${RECORDS:-1000000}"
work="${BENCH_DIR:-bench-data}"
mkdir -p "$work"
xml="$work/export-$records.xml"
bin=.build/release/healthrouter
[ -x "$bin" ] || swift build -c release --product healthrouter >/dev/null

if [ ! -s "$xml" ]; then
  echo "generating $records records into $xml …"
  python3 scripts/generate-export.py --records "$records" --seed 7 --out "$xml"
fi
size=$(stat -c %s "$xml")
echo "file: $xml, $((size / 1000000)) MB, $records records"

# wall seconds and peak RSS (kB) of a command, via GNU time
measure() {
  local out="$work/time.txt"
  /usr/bin/time -f "%e %M" -o "$out" "$@" >"$work/last.out" 2>"$work/last.err" || { cat "$work/last.err" >&2; return 1; }
  cat "$out"
}

sync
read -r xmllint_s xmllint_kb < <(measure xmllint --stream --noout "$xml")
echo "xmllint --stream --noout           ${xmllint_s}s  (peak RSS $((xmllint_kb / 1024)) MB)"

state="$work/state"
rm -rf "$state"
cat >"$work/bench.yaml" <<YAML
state_directory: $state
sinks:
  local: { type: sqlite, path: $state/health.sqlite }
  lake: { type: ndjson, directory: $state/ndjson }
YAML
read -r import_s import_kb < <(measure "$bin" import "$xml" --config "$work/bench.yaml" --quiet)
tail -n 20 "$work/last.out"
echo "healthrouter import (first)        ${import_s}s  (peak RSS $((import_kb / 1024)) MB)"
rows_before=$(sqlite3 "$state/health.sqlite" "SELECT (SELECT count(*) FROM samples) + (SELECT count(*) FROM sleep_stages) + (SELECT count(*) FROM workouts)")
read -r reimport_s reimport_kb < <(measure "$bin" import "$xml" --config "$work/bench.yaml" --quiet)
rows_after=$(sqlite3 "$state/health.sqlite" "SELECT (SELECT count(*) FROM samples) + (SELECT count(*) FROM sleep_stages) + (SELECT count(*) FROM workouts)")
grep -E "nothing new|new " "$work/last.out" || true
echo "healthrouter import (again)        ${reimport_s}s  (peak RSS $((reimport_kb / 1024)) MB; rows $rows_before -> $rows_after)"

h2s_s=""
if [ "${SKIP_H2S:-0}" != 1 ]; then
  venv="$work/venv"
  [ -x "$venv/bin/healthkit-to-sqlite" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q healthkit-to-sqlite; }
  rm -f "$work/h2s.db"
  read -r h2s_s h2s_kb < <(measure "$venv/bin/healthkit-to-sqlite" --xml "$xml" "$work/h2s.db")
  echo "healthkit-to-sqlite --xml          ${h2s_s}s  (peak RSS $((h2s_kb / 1024)) MB)"
fi

echo
echo "== figures"
awk -v a="$import_s" -v b="$xmllint_s" 'BEGIN { printf "import / xmllint --stream          %.2f   (target <= 1.5)\n", a / b }'
[ -n "$h2s_s" ] && awk -v a="$h2s_s" -v b="$import_s" 'BEGIN { printf "healthkit-to-sqlite / import       %.2f   (target >= 5)\n", a / b }'
awk -v a="$reimport_s" -v b="$import_s" 'BEGIN { printf "re-import / import                 %.2f   (target <= 0.5)\n", a / b }'
echo "peak RSS of import                 $((import_kb / 1024)) MB   (target <= 100)"
echo "rows written by the re-import      $((rows_after - rows_before))   (target 0)"
