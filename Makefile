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

# The tests' files go to a scratch folder (TMPDIR) removed afterwards, passed or failed: a run
# leaves a few GB of exports, stores and journals, and runs add up.
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
