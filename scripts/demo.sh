#!/usr/bin/env bash
# The README's first command: imports the bundled sample export into the embedded
# default (SQLite + NDJSON under ./healthrouter-data/) and shows what landed.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/healthrouter
echo "== healthrouter import samples/export.zip"
"$bin" import samples/export.zip
echo
echo "== the same import again: nothing new"
"$bin" import samples/export.zip --quiet
echo
echo "== healthrouter status"
"$bin" status || true
echo
db=healthrouter-data/health.sqlite
echo "== sqlite3 $db 'SELECT type, count(*), round(avg(value),1), unit FROM samples GROUP BY type, unit ORDER BY 2 DESC LIMIT 8'"
sqlite3 -column -header "$db" "SELECT type, count(*) AS n, round(avg(value),1) AS avg, unit FROM samples GROUP BY type, unit ORDER BY n DESC LIMIT 8"
echo
echo "== sleep per night (local time), source and stage: asleep stages only (several sources' nights overlap)"
sqlite3 -column -header "$db" "SELECT date(start_at, coalesce(start_utc_offset, 0) || ' seconds', '-12 hours') AS night, source_name, stage, round(sum(julianday(end_at) - julianday(start_at)) * 24, 2) AS hours FROM sleep_stages WHERE stage NOT IN ('inBed', 'awake') GROUP BY night, source_name, stage ORDER BY night, source_name, stage LIMIT 10"
echo
echo "== workouts"
sqlite3 -column -header "$db" "SELECT start_at, activity_type, round(duration_s / 60) AS minutes, round(total_distance_m) AS metres, round(total_energy_burned_kcal) AS kcal FROM workouts ORDER BY start_at LIMIT 5"
echo
echo "== the ECG (electrocardiograms/*.csv) and the clinical records with their FHIR resources"
sqlite3 -column -header "$db" "SELECT start_at, json_extract(attributes, '$.classification') AS classification, json_extract(attributes, '$.sampleRate') AS rate, json_extract(children, '\$[0].attributes.count') AS voltages FROM other_records WHERE type = 'HKDataTypeIdentifierElectrocardiogram'"
sqlite3 -column -header "$db" "SELECT type, json_extract(json_extract(children, '\$[#-1].attributes.json'), '$.code.text') AS what FROM other_records WHERE element = 'ClinicalRecord' AND json_valid(json_extract(children, '\$[#-1].attributes.json'))"
echo
echo "== NDJSON files (Pulso's layout) in healthrouter-data/ndjson/"
ls healthrouter-data/ndjson | head -12
echo
echo "Next: healthrouter import ~/Downloads/export.zip   (your own export; see README.md)"
