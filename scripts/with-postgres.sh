#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL on loopback, then removes it.
# The command sees PG_URL (a libpq conninfo, no TLS) and PG_PORT. When openssl is there, the server
# also speaks TLS with a certificate for 127.0.0.1 from a throwaway CA (PG_TLS_ROOT_CERT, for
# sslmode=verify-full), and role PG_PASSWORD_ROLE (which the tests create) must log in with a
# password over loopback; every other role is trusted. When the server's extension folder is
# writable (root, as in CI) and holds no real TimescaleDB, a stand-in `timescaledb` extension
# (versions 2.17.2 and 2.28.3 and the update between them; scripts/timescaledb-stand-in.sql, no
# library) is there while the command runs (PG_FAKE_TIMESCALEDB=1), so the sink's probe meets a
# real catalog, and a library whose name says timescaledb (auto_explain under another name,
# PG_FAKE_TIMESCALEDB_LIBRARY) for a test's own server to preload. Both are removed afterwards.
#   scripts/with-postgres.sh swift test
set -euo pipefail
port="${PG_PORT:-55433}"   # the first free port from here on is used
bindir="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
datadir="$(mktemp -d /tmp/healthrouter-pg.XXXXXX)"
chmod 755 "$datadir"
as_postgres=()
# initdb refuses to run as root.
if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$datadir"; as_postgres=(runuser -u postgres --); fi
extensions="$(dirname "$(dirname "$(dirname "$bindir")")")/../share/postgresql/$(basename "$(dirname "$bindir")")/extension"
stand_in=()
cleanup() {
  "${as_postgres[@]}" "$bindir/pg_ctl" -D "$datadir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$datadir"
  # The stand-in lives in the server's shared folders: another throwaway server still running
  # (a second test run) keeps it, and the last one to stop removes it.
  local others
  others="$(ls -d /tmp/healthrouter-pg.*/data/postmaster.pid 2>/dev/null | grep -v "^$datadir/" || true)"
  [ ${#stand_in[@]} -eq 0 ] || [ -n "$others" ] || rm -f "${stand_in[@]}"
}
trap cleanup EXIT
"${as_postgres[@]}" "$bindir/initdb" -D "$datadir/data" -A trust -U postgres >"$datadir/initdb.log" 2>&1 \
  || { cat "$datadir/initdb.log" >&2; exit 1; }
password_role=hr_password_test
{ echo "host all $password_role 127.0.0.1/32 scram-sha-256"; cat "$datadir/data/pg_hba.conf"; } >"$datadir/pg_hba.conf"
cat "$datadir/pg_hba.conf" >"$datadir/data/pg_hba.conf"   # in place: the file stays the server's
tls_options=""
if command -v openssl >/dev/null; then
  tls="$datadir/tls"
  mkdir "$tls"
  quiet() { "$@" >/dev/null 2>&1 || { echo "with-postgres: $1 $2 failed" >&2; exit 1; }; }
  quiet openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tls/ca.key" -out "$tls/ca.pem" -days 2 \
    -subj "/CN=healthrouter throwaway CA"
  quiet openssl req -newkey rsa:2048 -nodes -keyout "$tls/server.key" -out "$tls/server.csr" -subj "/CN=127.0.0.1"
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$tls/server.ext"
  quiet openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial \
    -out "$tls/server.pem" -days 2 -extfile "$tls/server.ext"
  chmod 600 "$tls/server.key"   # the server refuses a key others can read
  chmod 644 "$tls/ca.pem" "$tls/server.pem"
  if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$tls/server.key" "$tls/server.pem"; fi
  tls_options="-c ssl=on -c ssl_cert_file=$tls/server.pem -c ssl_key_file=$tls/server.key"
  export PG_TLS_ROOT_CERT="$tls/ca.pem"
fi
# A stand-in left by a killed run (its comment says so) is taken over; a real TimescaleDB is never touched.
if [ -w "$extensions" ] && { [ ! -e "$extensions/timescaledb.control" ] \
     || grep -q "healthrouter test stand-in" "$extensions/timescaledb.control"; }; then
  stand_in=("$extensions/timescaledb.control" "$extensions/timescaledb--2.17.2.sql" "$extensions/timescaledb--2.28.3.sql"
            "$extensions/timescaledb--2.17.2--2.28.3.sql")
  printf "comment = 'healthrouter test stand-in for TimescaleDB: catalog rows only, no library'\n%s\n%s\n" \
    "default_version = '2.28.3'" "relocatable = false" >"${stand_in[0]}"
  cp "$(dirname "$0")/timescaledb-stand-in.sql" "${stand_in[1]}"
  cp "$(dirname "$0")/timescaledb-stand-in.sql" "${stand_in[2]}"
  echo "-- stand-in: nothing changes" >"${stand_in[3]}"
  export PG_FAKE_TIMESCALEDB=1
  library="$bindir/../lib/timescaledb_healthrouter_stand_in.so"
  if [ -w "$bindir/../lib" ] && [ -e "$bindir/../lib/auto_explain.so" ] && { [ ! -e "$library" ] || [ -L "$library" ]; }; then
    ln -sf auto_explain.so "$library"
    stand_in+=("$library")
    export PG_FAKE_TIMESCALEDB_LIBRARY=timescaledb_healthrouter_stand_in
  fi
fi
started=""
for attempt in 1 2 3 4 5 6 7 8 9 10; do
  if "${as_postgres[@]}" "$bindir/pg_ctl" -D "$datadir/data" -l "$datadir/postgres.log" -w \
       -o "-p $port -k $datadir -c listen_addresses=127.0.0.1 -c fsync=off $tls_options" start >/dev/null 2>&1; then
    started=1; break
  fi
  port=$((port + 1))   # taken by another PostgreSQL (a second test run?): try the next one
done
[ -n "$started" ] || { cat "$datadir/postgres.log" >&2; exit 1; }
export PG_PORT="$port"
export PG_URL="host=127.0.0.1 port=$port dbname=postgres user=postgres sslmode=disable"
export PG_PASSWORD_ROLE="$password_role"
echo "PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (throwaway)"
"$@"
