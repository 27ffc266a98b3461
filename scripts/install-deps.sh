#!/usr/bin/env bash
# Installs the Debian packages healthrouter builds, tests and benchmarks with, when missing.
# Safe to run again: it installs only what is not there.
set -euo pipefail
packages=(
  make                             # the README's commands (make demo, make test)
  pkg-config                       # finds the C libraries' include paths
  libsqlite3-dev sqlite3           # journal, sqlite sink; sqlite3 for the README's queries
  libxml2-dev libxml2-utils        # export.xml SAX parser; xmllint for the import benchmark
  libarchive-dev                   # export.zip, streaming, ZIP64
  libyaml-dev                      # the config file
  zlib1g-dev                       # gzip
  libssl-dev                       # SHA-1 for UUIDv5 ids
  libpq-dev postgresql             # Postgres sinks and their tests
  libcurl4-openssl-dev libmicrohttpd-dev   # HTTP sink and HTTP push source
  python3 python3-venv             # fixture generator; healthkit-to-sqlite in the benchmark
  openssl                          # the TLS tests' certificates (http_push, the test PostgreSQL's CA)
  util-linux bsdutils              # runuser/setpriv run PostgreSQL as postgres under root; script gives a test a terminal
  mount                            # a test mounts a read-only file system in a user namespace (unshare)
  strace                           # durability tests: the order of fsyncs, commits and a push's 200
  curl                             # bench-push.sh waits for the daemon with it
  zip                              # a test's encrypted zip (zip -P)
  tzdata                           # zone offsets of samples that recorded their zone (HKTimeZone), and time_zone
)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v swift >/dev/null || { echo "swift is not on PATH: install the Swift 6 toolchain first (https://www.swift.org/install/linux/)" >&2; exit 1; }
