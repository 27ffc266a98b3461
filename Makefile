# The two commands of the README, and a few more.
#   make demo   installs what is missing, builds, imports the bundled sample export into SQLite + NDJSON
#   make test   installs what is missing, starts a throwaway PostgreSQL on loopback, runs every test
.PHONY: deps build demo test bench clean

deps:
	@bash scripts/install-deps.sh

build: deps
	swift build -c release --product healthrouter

demo: build
	@bash scripts/demo.sh

# Each test process removes its files at exit (Tests/TestSupport/TestScratch.swift); the scratch
# folder (TMPDIR), removed afterwards passed or failed, also takes what a crashed or interrupted
# run leaves (up to a few GB of exports, stores and journals) and SwiftPM's own temporary files.
test: deps
	swift build --build-tests
	@scratch="$$(mktemp -d "$${TMPDIR:-/tmp}/healthrouter-tests.XXXXXX")" && chmod 755 "$$scratch" && \
	  trap 'rm -rf "$$scratch"' EXIT && trap 'exit 130' INT TERM && \
	  TMPDIR="$$scratch/" bash scripts/with-postgres.sh swift test --skip-build

bench: build
	bash scripts/bench-import.sh

clean:
	rm -rf .build healthrouter-data

# rows/s through the Postgres sinks vs a psql COPY + INSERT … ON CONFLICT reference (issue 3)
bench-postgres: deps
	bash scripts/bench-postgres.sh

# migrate sqlite → postgres vs the postgres sink's own import rate, and --verify time (issue 5)
bench-migrate: deps
	bash scripts/bench-migrate.sh
