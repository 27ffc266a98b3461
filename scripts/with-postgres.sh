#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL on loopback, then removes it.
# The command sees PG_URL (a libpq conninfo) and PG_PORT.
#   scripts/with-postgres.sh swift test
set -euo pipefail
port="${PG_PORT:-55433}"   # the first free port from here on is used
bindir="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
datadir="$(mktemp -d /tmp/healthrouter-pg.XXXXXX)"
chmod 755 "$datadir"
as_postgres=()
# initdb refuses to run as root.
if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$datadir"; as_postgres=(runuser -u postgres --); fi
cleanup() {
  "${as_postgres[@]}" "$bindir/pg_ctl" -D "$datadir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$datadir"
}
trap cleanup EXIT
"${as_postgres[@]}" "$bindir/initdb" -D "$datadir/data" -A trust -U postgres >"$datadir/initdb.log" 2>&1 \
  || { cat "$datadir/initdb.log" >&2; exit 1; }
started=""
for attempt in 1 2 3 4 5 6 7 8 9 10; do
  if "${as_postgres[@]}" "$bindir/pg_ctl" -D "$datadir/data" -l "$datadir/postgres.log" -w \
       -o "-p $port -k $datadir -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null 2>&1; then
    started=1; break
  fi
  port=$((port + 1))   # taken by another PostgreSQL (a second test run?): try the next one
done
[ -n "$started" ] || { cat "$datadir/postgres.log" >&2; exit 1; }
export PG_PORT="$port"
export PG_URL="host=127.0.0.1 port=$port dbname=postgres user=postgres"
echo "PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (throwaway)"
"$@"
