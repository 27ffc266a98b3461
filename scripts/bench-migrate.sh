#!/usr/bin/env bash
# Migration benchmark (issue 5). In one run, on a local PostgreSQL (a throwaway one from
# scripts/with-postgres.sh unless PG_URL is set), with SAMPLES generated samples (default 1,000,000):
#   1. the sqlite store is filled from an NDJSON file (`backfill local --from`, no journal);
#   2. the postgres sink's own import rate: `healthrouter import` of the same file into a config
#      whose only sink is postgres (schema bench_import): journal + sink worker, as users import;
#   3. `migrate --from local --to pg` (schema bench_migrate): rate, and the ratio to step 2;
#   4. `migrate --verify-only` between them: the time to read both sides back and compare
#      (postgres' health4ai schema is lossy — source versions, offsets — so types differ;
#      step 5 is the exact case);
#   5. `migrate --from local --to copy --verify` into a second sqlite store: rate and verify time.
#   SAMPLES=200000 scripts/bench-migrate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${PG_URL:-}" ]; then export PG_PORT="${PG_PORT:-55481}"; exec bash scripts/with-postgres.sh bash "$0" "$@"; fi
samples="${SAMPLES:-1000000}"
work="$(realpath "${BENCH_DIR:-bench-data}")/migrate-$samples"
rm -rf "$work/state" "$work"/*.sqlite* "$work/import-state"
mkdir -p "$work"
swift build -c release --product healthrouter >/dev/null
hr="$(realpath .build/release/healthrouter)"
ndjson="$work/samples.ndjson"
[ -s "$ndjson" ] || python3 scripts/generate-ndjson.py --samples "$samples" --out "$ndjson"
psql -X -q "$PG_URL" -c "SET client_min_messages = warning; DROP SCHEMA IF EXISTS bench_import CASCADE; DROP SCHEMA IF EXISTS bench_migrate CASCADE; CREATE SCHEMA bench_import; CREATE SCHEMA bench_migrate"
user="00000000-0000-4000-8000-000000000001"
cat >"$work/migrate.yaml" <<YAML
state_directory: $work/state
sinks:
  local:
    type: sqlite
    path: $work/local.sqlite
  copy:
    type: sqlite
    path: $work/copy.sqlite
  pg:
    type: postgres
    url: "$PG_URL"
    schema: bench_migrate
    user_id: $user
routes:
  - types: ["*"]
    to: [local]
YAML
cat >"$work/import.yaml" <<YAML
state_directory: $work/import-state
sinks:
  pg:
    type: postgres
    url: "$PG_URL"
    schema: bench_import
    user_id: $user
YAML
now() { date +%s.%N; }
rate() { python3 -c "print(int($samples / ($2 - $1)))"; }
secs() { python3 -c "print(f'{$2 - $1:.1f}')"; }

t0=$(now); "$hr" backfill local --from "$ndjson" --config "$work/migrate.yaml" -q >/dev/null; t1=$(now)
echo "sqlite store filled from NDJSON (backfill --from): $samples samples in $(secs $t0 $t1) s = $(rate $t0 $t1) samples/s"
t0=$(now); "$hr" import "$ndjson" --config "$work/import.yaml" -q >/dev/null; t1=$(now)
import_rate=$(rate $t0 $t1)
echo "postgres sink's own import (healthrouter import, journal + worker): $(secs $t0 $t1) s = $import_rate samples/s"
t0=$(now); "$hr" migrate --from local --to pg --config "$work/migrate.yaml" -q >/dev/null; t1=$(now)
migrate_rate=$(rate $t0 $t1)
echo "migrate sqlite -> postgres: $(secs $t0 $t1) s = $migrate_rate samples/s"
python3 -c "print(f'  => migration {$migrate_rate / $import_rate:.2f}x the postgres import rate (issue asks >= 0.8)')"
t0=$(now); "$hr" migrate --from local --to pg --verify-only --config "$work/migrate.yaml" -q >"$work/verify-pg.txt" || true; t1=$(now)
echo "migrate --verify-only sqlite vs postgres ($samples samples each side): $(secs $t0 $t1) s (issue asks <= 30 s); $(tail -n 1 "$work/verify-pg.txt")"
t0=$(now); "$hr" migrate --from local --to copy --config "$work/migrate.yaml" -q >/dev/null; t1=$(now)
echo "migrate sqlite -> sqlite: $(secs $t0 $t1) s = $(rate $t0 $t1) samples/s"
t0=$(now); "$hr" migrate --from local --to copy --verify-only --config "$work/migrate.yaml" -q >"$work/verify-copy.txt"; t1=$(now)
echo "migrate --verify-only sqlite vs sqlite: $(secs $t0 $t1) s; $(tail -n 1 "$work/verify-copy.txt")"
