#!/usr/bin/env bash
# Postgres sink benchmark (issue 3). In one run, on a local PostgreSQL (a throwaway one from
# scripts/with-postgres.sh unless PG_URL is set), with ROWS generated samples (default 1,000,000),
# for each sink (timescaledb with plain tables, postgres):
#   - the reference: psql COPY of the same rows into a staging table + INSERT … ON CONFLICT … DO UPDATE
#     … WHERE … IS DISTINCT FROM, in one transaction, into a copy of the sink's main table (same
#     columns, indexes and constraints: CREATE TABLE … (LIKE … INCLUDING ALL)), with the row content
#     the sink writes (for postgres, metadata carries healthrouter_id as the sink's rows do);
#   - for timescaledb also the reference doing the work the sink does beyond it: the same, plus
#     the id → (table, start_at) lookup table `sample_index` filled in the same statement;
#   - the sink, 5,000 rows a batch (the worker's default), one transaction each, twice: the second
#     pass re-delivers every row and must write none; only the sink's write calls are timed;
# and prints rows/s, the ratios the issue asks for, rows written by the re-delivery and table sizes,
# and the same ratios by CPU seconds (server process + client), steadier on a shared machine.
# Before each timed phase the database is settled (VACUUM ANALYZE, untimed), so autovacuum work
# left by the previous phase does not run during the next one. REPEAT=n runs each sink's
# references + sink n times (the machine is shared: compare the ratios of one round).
#   ROWS=200000 REPEAT=3 scripts/bench-postgres.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${PG_URL:-}" ]; then exec bash scripts/with-postgres.sh bash "$0" "$@"; fi
rows="${ROWS:-1000000}"
repeat="${REPEAT:-1}"
work="${BENCH_DIR:-bench-data}"
mkdir -p "$work"
swift build -c release --product postgres-bench >/dev/null
bench=.build/release/postgres-bench
tsv="$(realpath "$work")/pg-$rows.tsv"
[ -s "$tsv" ] || "$bench" --rows "$rows" --tsv "$tsv"
sql=(psql -X -q -v ON_ERROR_STOP=1 "$PG_URL")
now() { date +%s.%N; }
user="00000000-0000-4000-8000-000000000001"
stage="CREATE TEMP TABLE stage (id text, start_at bigint, end_at bigint, type text, source_name text, device text,
  value double precision, unit text, metadata jsonb, journal_seq bigint) ON COMMIT DROP;"
ms() { echo "to_timestamp($1::float8 / 1000)"; }

# reference LABEL SCHEMA INSERT: times psql COPY + INSERT in one transaction; sets ref_rate and
# ref_cpu ("server client" CPU seconds, empty when /proc cannot be read through the server).
reference() {
  local label=$1 schema=$2 insert=$3
  "${sql[@]}" -c "VACUUM ANALYZE"
  # The server process's CPU time is read from /proc before and after (a local server and a superuser, as here).
  local stat="SELECT pg_read_file('/proc/self/stat');" t0 t1 out
  t0=$(now)
  out=$(printf '%s\nBEGIN;\n%s\n\\copy stage FROM %s\n%s;\nCOMMIT;\n%s\n' "$stat" "$stage" "'$tsv'" "$insert" "$stat" \
    | /usr/bin/time -f "%U %S" -o "$work/psql-cpu" "${sql[@]}" -At)
  t1=$(now)
  "${sql[@]}" -c "VACUUM ANALYZE" -c "SET client_min_messages = warning" -c "DROP SCHEMA $schema CASCADE"
  ref_rate=$(python3 -c "print(int($rows / ($t1 - $t0)))")
  ref_cpu=$(python3 - "$work/psql-cpu" "$out" <<'PY'
import os, sys
lines = [l for l in sys.argv[2].splitlines() if ")" in l]
tick = os.sysconf("SC_CLK_TCK")
try:
    server = [sum(int(x) for x in l.rsplit(")", 1)[1].split()[11:13]) / tick for l in lines]
    client = sum(float(x) for x in open(sys.argv[1]).read().split()[:2])
    print(f"{server[1] - server[0]:.2f} {client:.2f}")
except Exception:
    print("")
PY
)
  local cpu=""
  [ -n "$ref_cpu" ] && cpu="; cpu: server ${ref_cpu% *} s + client ${ref_cpu#* } s"
  echo "$label: $rows rows in $(python3 -c "print(int(($t1 - $t0) * 1000))") ms = $ref_rate rows/s$cpu"
}

for round in $(seq "$repeat"); do
for sink in timescaledb postgres; do
  schema="bench_$sink"
  "${sql[@]}" -c "SET client_min_messages = warning; DROP SCHEMA IF EXISTS $schema CASCADE" \
    -c "DROP SCHEMA IF EXISTS bench_ref_$sink CASCADE; DROP SCHEMA IF EXISTS bench_ref2_$sink CASCADE"
  "$bench" --url "$PG_URL" --sink "$sink" --schema "$schema" --prepare-only 1
  if [ "$sink" = timescaledb ]; then
    upsert() {
      echo "INSERT INTO $1.samples AS t (id, start_at, end_at, type, source_name, device, value, unit, metadata, journal_seq, kind)
      SELECT DISTINCT ON (id, start_at) id, $(ms start_at), $(ms end_at), type, source_name, device, value, unit, metadata, journal_seq, 'quantity'
      FROM stage ORDER BY id, start_at, journal_seq DESC
      ON CONFLICT (id, start_at) DO UPDATE SET end_at = EXCLUDED.end_at, type = EXCLUDED.type, source_name = EXCLUDED.source_name,
        device = EXCLUDED.device, value = EXCLUDED.value, unit = EXCLUDED.unit, metadata = EXCLUDED.metadata,
        journal_seq = EXCLUDED.journal_seq, written_at = now()
      WHERE (t.end_at, t.type, t.source_name, t.device, t.value, t.unit, t.metadata)
        IS DISTINCT FROM (EXCLUDED.end_at, EXCLUDED.type, EXCLUDED.source_name, EXCLUDED.device, EXCLUDED.value, EXCLUDED.unit, EXCLUDED.metadata)"
    }
    "${sql[@]}" -c "CREATE SCHEMA bench_ref_$sink; CREATE TABLE bench_ref_$sink.samples (LIKE $schema.samples INCLUDING ALL)"
    reference "$sink reference (psql COPY + INSERT … ON CONFLICT into the same table shape)" "bench_ref_$sink" "$(upsert "bench_ref_$sink")"
    main_rate=$ref_rate main_cpu=$ref_cpu
    "${sql[@]}" -c "CREATE SCHEMA bench_ref2_$sink; CREATE TABLE bench_ref2_$sink.samples (LIKE $schema.samples INCLUDING ALL);
      CREATE TABLE bench_ref2_$sink.sample_index (LIKE $schema.sample_index INCLUDING ALL)"
    reference "$sink reference + lookup table (the same, and sample_index filled from its RETURNING)" "bench_ref2_$sink" \
      "WITH up AS ($(upsert "bench_ref2_$sink") RETURNING t.id, t.start_at)
      INSERT INTO bench_ref2_$sink.sample_index AS k (id, table_name, start_at) SELECT id, 'samples', start_at FROM up
      ON CONFLICT (id) DO UPDATE SET table_name = EXCLUDED.table_name, start_at = EXCLUDED.start_at
      WHERE (k.table_name, k.start_at) IS DISTINCT FROM (EXCLUDED.table_name, EXCLUDED.start_at)"
    lookup_rate=$ref_rate lookup_cpu=$ref_cpu
  else
    "${sql[@]}" -c "CREATE SCHEMA bench_ref_$sink; CREATE TABLE bench_ref_$sink.healthkit_metrics (LIKE $schema.healthkit_metrics INCLUDING ALL)"
    reference "$sink reference (psql COPY + INSERT … ON CONFLICT into the same table shape)" "bench_ref_$sink" \
      "INSERT INTO bench_ref_$sink.healthkit_metrics AS t (id, user_id, metric_type, value, unit, source_device, started_at, ended_at, metadata, journal_seq)
      SELECT DISTINCT ON (type, device, start_at) id::uuid, '$user', type, value, unit, device, $(ms start_at), $(ms end_at),
        coalesce(metadata, '{}') || jsonb_build_object('healthrouter_id', id), journal_seq
      FROM stage ORDER BY type, device, start_at, journal_seq DESC
      ON CONFLICT (user_id, metric_type, source_device, started_at) DO UPDATE SET id = EXCLUDED.id, value = EXCLUDED.value,
        unit = EXCLUDED.unit, ended_at = EXCLUDED.ended_at, metadata = EXCLUDED.metadata, journal_seq = EXCLUDED.journal_seq, synced_at = now()
      WHERE (t.id, t.value, t.unit, t.ended_at, t.metadata) IS DISTINCT FROM (EXCLUDED.id, EXCLUDED.value, EXCLUDED.unit, EXCLUDED.ended_at, EXCLUDED.metadata)"
    main_rate=$ref_rate main_cpu=$ref_cpu lookup_rate="" lookup_cpu=""
  fi
  out=$("$bench" --url "$PG_URL" --sink "$sink" --schema "$schema" --rows "$rows")
  echo "$out"
  python3 - "$sink" "$out" "$main_rate" "$main_cpu" "$lookup_rate" "$lookup_cpu" <<'PY'
import re, sys
sink, text, ref, ref_cpu, lookup, lookup_cpu = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
rate = [int(x) for x in re.findall(r"= (\d+) rows/s", text)]
written = re.findall(r"rows written in this pass (\d+)", text)
size = re.findall(r"size (\d+) MB", text)
print(f"  => {sink}: new rows {rate[0] / ref:.2f}x the reference (issue asks >= 0.8); re-delivery {rate[1] / rate[0]:.2f}x "
      f"as fast as the first load (issue asks >= 1.5); rows written by the re-delivery: {written[1]}; size {size[0]} -> {size[1]} MB")
if lookup:
    print(f"     the sink also fills sample_index (a second row per sample, for tombstones): against the reference that does too, "
          f"new rows {rate[0] / int(lookup):.2f}x")
cpu = [float(a) + float(b) for a, b in re.findall(r"cpu: server ([\d.]+) s \+ client ([\d.]+) s", text)]
if ref_cpu and len(cpu) == 2:
    line = f"     by CPU seconds: new rows {sum(map(float, ref_cpu.split())) / cpu[0]:.2f}x the reference"
    if lookup_cpu:
        line += f", {sum(map(float, lookup_cpu.split())) / cpu[0]:.2f}x the reference with the lookup table"
    print(line + f"; re-delivery {cpu[0] / cpu[1]:.2f}x the first load")
PY
done
done
