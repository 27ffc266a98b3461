#!/usr/bin/env bash
# Import benchmark (issue: the spine). Generates a 1,000,000-Record export.xml with a realistic
# mix, then measures in the same run, on the same file:
#   - xmllint --stream --noout               (the floor: libxml2 reading the file, nothing else)
#   - healthrouter import into the embedded default (journal + SQLite + NDJSON), fresh state
#   - the same import again (re-import: must write no rows)
#   - healthkit-to-sqlite --xml (PyPI, in a venv this script makes)
# and prints wall times, ratios and peak RSS: ROUNDS rounds (default 3) of all four, in turn, and
# the medians (the machine this was written on is a shared VM whose speed drifts by minutes).
#   RECORDS=200000 ROUNDS=1 scripts/bench-import.sh     (a smaller run)
#   SKIP_H2S=1 scripts/bench-import.sh                  (without healthkit-to-sqlite)
set -euo pipefail
cd "$(dirname "$0")/.."
records="${RECORDS:-1000000}"
work="${BENCH_DIR:-bench-data}"
mkdir -p "$work"
xml="$work/export-$records.xml"
bin=.build/release/healthrouter
# Always brought up to date (a no-op when it is): an old binary left in .build would be measured.
swift build -c release --product healthrouter >/dev/null
echo "binary: $bin, built from $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' + uncommitted changes')"

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

state="$work/state"
cat >"$work/bench.yaml" <<YAML
state_directory: $state
sinks:
  local: { type: sqlite, path: $state/health.sqlite }
  lake: { type: ndjson, directory: $state/ndjson }
YAML
venv="$work/venv"
if [ "${SKIP_H2S:-0}" != 1 ] && [ ! -x "$venv/bin/healthkit-to-sqlite" ]; then
  python3 -m venv "$venv" && "$venv/bin/pip" install -q healthkit-to-sqlite
fi
rows() {
  sqlite3 "$state/health.sqlite" "SELECT (SELECT count(*) FROM samples) + (SELECT count(*) FROM sleep_stages) + (SELECT count(*) FROM workouts)"
}

# ROUNDS rounds (default 3), each measuring every command once, in turn: on a shared machine
# whose speed drifts, the commands of one round see about the same machine, and the medians
# over the rounds are the figures.
rounds="${ROUNDS:-3}"
results="$work/rounds.txt"
: >"$results"
for round in $(seq "$rounds"); do
  echo "== round $round of $rounds"
  sync
  read -r xmllint_s xmllint_kb < <(measure xmllint --stream --noout "$xml")
  echo "xmllint --stream --noout           ${xmllint_s}s  (peak RSS $((xmllint_kb / 1024)) MB)"
  rm -rf "$state"
  read -r import_s import_kb < <(measure "$bin" import "$xml" --config "$work/bench.yaml" --quiet)
  [ "$round" = 1 ] && tail -n 20 "$work/last.out"
  echo "healthrouter import (first)        ${import_s}s  (peak RSS $((import_kb / 1024)) MB)"
  rows_before=$(rows)
  read -r reimport_s reimport_kb < <(measure "$bin" import "$xml" --config "$work/bench.yaml" --quiet)
  rows_after=$(rows)
  grep -E "nothing new|new " "$work/last.out" || true
  echo "healthrouter import (again)        ${reimport_s}s  (peak RSS $((reimport_kb / 1024)) MB; rows $rows_before -> $rows_after)"
  h2s_s=0
  if [ "${SKIP_H2S:-0}" != 1 ]; then
    rm -f "$work/h2s.db"
    read -r h2s_s h2s_kb < <(measure "$venv/bin/healthkit-to-sqlite" --xml "$xml" "$work/h2s.db")
    echo "healthkit-to-sqlite --xml          ${h2s_s}s  (peak RSS $((h2s_kb / 1024)) MB)"
  fi
  echo "$xmllint_s $import_s $reimport_s $h2s_s $import_kb $((rows_after - rows_before))" >>"$results"
done

echo
python3 - "$results" "${SKIP_H2S:-0}" <<'PY'
import statistics, sys
rounds = [list(map(float, line.split())) for line in open(sys.argv[1]) if line.strip()]
skip_h2s = sys.argv[2] == "1"
def med(values): return statistics.median(values)
xmllint, first, again, h2s, rss, written = (list(column) for column in zip(*rounds))
print(f"== figures: medians of {len(rounds)} round(s) (each round's own ratio in brackets)")
print(f"xmllint --stream --noout           {med(xmllint):.2f} s")
print(f"healthrouter import (first)        {med(first):.2f} s")
print(f"healthrouter import (again)        {med(again):.2f} s")
if not skip_h2s:
    print(f"healthkit-to-sqlite --xml          {med(h2s):.2f} s")
def ratios(a, b): return "[" + ", ".join(f"{x / y:.2f}" for x, y in zip(a, b)) + "]"
print(f"import / xmllint --stream          {med(first) / med(xmllint):.2f}   (target <= 1.5)  {ratios(first, xmllint)}")
if not skip_h2s:
    print(f"healthkit-to-sqlite / import       {med(h2s) / med(first):.2f}   (target >= 5)    {ratios(h2s, first)}")
print(f"re-import / import                 {med(again) / med(first):.2f}   (target <= 0.5)  {ratios(again, first)}")
print(f"peak RSS of import                 {int(max(rss)) // 1024} MB   (target <= 100; the largest of the rounds)")
print(f"rows written by the re-imports     {int(sum(written))}   (target 0)")
PY
