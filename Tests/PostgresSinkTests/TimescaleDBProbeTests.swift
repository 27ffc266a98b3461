import Foundation
import Testing
import HealthRouterCore
import PostgresClient
@testable import TimescaleDBSink
import TestSupport

/// What the timescaledb sink finds out about TimescaleDB on connect, and what it tells the user.
/// TimescaleDB cannot be installed here: `scripts/with-postgres.sh` puts a stand-in `timescaledb`
/// extension (versions 2.17.2 and 2.28.3, catalog rows only) on the throwaway server, so the probe
/// runs its real queries against a real catalog. The failures only a loaded TimescaleDB library
/// produces are checked with the errors recorded in shared/reference/timescaledb.md.
@Suite struct TimescaleDBProbeTests {
    /// A database of its own (the stand-in must not be installed where other tests run), dropped after `body`.
    func withDatabase(_ body: (_ url: String, _ name: String, _ connection: PostgresConnection) throws -> Void) throws {
        guard let adminURL = PostgresTestDatabase.url, let port = PostgresTestDatabase.port,
              PostgresTestDatabase.environment("PG_FAKE_TIMESCALEDB") != nil else { return }
        let name = "hr_probe_" + PostgresTestDatabase.freshSchema()
        let admin = try PostgresConnection(url: adminURL)
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \(SQL.identifier(name))")
        defer { _ = try? admin.execute("DROP DATABASE \(SQL.identifier(name)) WITH (FORCE)") }
        let url = "host=127.0.0.1 port=\(port) user=postgres sslmode=disable dbname=\(name)"
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        try body(url, name, connection)
    }

    func prepareError(_ url: String, requireTimescaledb: Bool = true) -> String? {
        SinkFixtures.prepareProblem(TimescaleDBSink(configuration: .init(url: url, schema: "health", requireTimescaledb: requireTimescaledb),
                                                    context: ConformanceFixtures.context()))
    }

    @Test func availableThenInstalledWithoutPreloadThenUpdated() throws {
        try withDatabase { url, name, connection in
            let database = "127.0.0.1:\(PostgresTestDatabase.port ?? "")/\(name)"
            // Available on the server, not installed in the database.
            var probe = try TimescaleDBProbe.run(on: connection)
            #expect(probe.catalogVersion == nil && probe.availableVersion == "2.28.3" && !probe.isUsable)
            // With require_timescaledb: false set already, the reason plain tables are made does
            // not tell to set it.
            #expect(probe.problem(database: name, required: false)?.hasSuffix("as a superuser") == true)
            #expect(probe.problem(database: name)?.hasSuffix("set require_timescaledb: false to create plain tables") == true)
            let notInstalled = try #require(prepareError(url))
            #expect(notInstalled.contains("the timescaledb extension (2.28.3) is available but not installed in database \(database)"))
            #expect(notInstalled.contains("run CREATE EXTENSION timescaledb; as a superuser, or set require_timescaledb: false"))

            // Installed at an older version, and not in shared_preload_libraries.
            try connection.execute("CREATE EXTENSION timescaledb VERSION '2.17.2'")
            probe = try TimescaleDBProbe.run(on: connection)
            #expect(probe.catalogVersion == "2.17.2" && probe.availableVersion == "2.28.3")
            #expect(!probe.preloaded && !probe.isUsable)
            let notPreloaded = try #require(prepareError(url))
            #expect(notPreloaded.contains("TimescaleDB 2.17.2 is installed in database \(database) but not preloaded"))
            #expect(notPreloaded.contains("add timescaledb to shared_preload_libraries in postgresql.conf and restart PostgreSQL"))
            let pending = try #require(probe.pendingUpdate)
            #expect(pending.contains("catalog is at 2.17.2 while 2.28.3 is installed"))
            #expect(pending.contains("run ALTER EXTENSION timescaledb UPDATE as the first command of a fresh session"))

            // Allowed to go without: plain tables, and the sink writes.
            #expect(prepareError(url, requireTimescaledb: false) == nil)
            let sink = TimescaleDBSink(configuration: .init(url: url, schema: "health", requireTimescaledb: false),
                                       context: ConformanceFixtures.context())
            defer { sink.close() }
            _ = try sink.prepare()
            #expect(!sink.usesHypertables)
            try sink.write(ConformanceFixtures.entries([ConformanceFixtures.heartRate]), cursor: 1)
            #expect(try connection.execute("SELECT count(*) FROM health.samples").int(0, 0) == 1)

            // The update the warning asks for clears it.
            try connection.execute("ALTER EXTENSION timescaledb UPDATE")
            probe = try TimescaleDBProbe.run(on: connection)
            #expect(probe.catalogVersion == "2.28.3" && probe.pendingUpdate == nil)
        }
    }

    /// shared_preload_libraries is for superusers and pg_read_all_settings only: the least
    /// privileged role a sink should use gets its answer from the loader's own setting instead of
    /// a permission error that would be retried forever.
    @Test func aRoleThatMayNotReadServerSettingsIsProbedToo() throws {
        try withDatabase { _, name, connection in
            let role = "hr_probe_plain_role"
            try connection.execute("""
                DO $$ BEGIN CREATE ROLE \(role) LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
                CREATE EXTENSION timescaledb VERSION '2.17.2'; GRANT CREATE ON DATABASE \(SQL.identifier(name)) TO \(role)
                """)
            let url = "host=127.0.0.1 port=\(PostgresTestDatabase.port ?? "") user=\(role) sslmode=disable dbname=\(name)"
            let plain = try PostgresConnection(url: url)
            defer { plain.close() }
            #expect(throws: PostgresError.self) { try plain.execute("SELECT current_setting('shared_preload_libraries')") }
            let probe = try TimescaleDBProbe.run(on: plain)
            #expect(probe.catalogVersion == "2.17.2" && !probe.preloaded)
            let notPreloaded = try #require(prepareError(url))
            #expect(notPreloaded.contains("TimescaleDB 2.17.2 is installed in database") && notPreloaded.contains("but not preloaded"))
            #expect(prepareError(url, requireTimescaledb: false) == nil)
            // A value for the loader's setting given without the loader (a role setting, as
            // managed services write them) is a placeholder, no sign of the loader.
            try connection.execute("ALTER ROLE \(role) IN DATABASE \(SQL.identifier(name)) SET timescaledb.disable_load = 'off'")
            let withSetting = try PostgresConnection(url: url)
            defer { withSetting.close() }
            #expect(try withSetting.execute("SELECT current_setting('timescaledb.disable_load', true)").text(0, 0) == "off")
            #expect(try !TimescaleDBProbe.run(on: withSetting).preloaded)
            #expect(prepareError(url)?.contains("but not preloaded") == true)
        }
    }

    /// The loader opens the library at a session's first statement, the connection's own SET: a
    /// library that is missing or disagrees fails the connection, and that failure is told as
    /// what is wrong with TimescaleDB, with the version from the error and the database it was.
    @Test func aLibraryThatFailsToLoadAtConnectIsToldWithTheCatalogVersion() {
        func failure(_ sqlState: String, _ text: String, detail: String? = nil) -> String? {
            TimescaleDBProbe.libraryFailure(PostgresError(sqlState: sqlState, message: text, detail: detail,
                                                          operation: "connect to db.lan:5432/health")).map { "\($0)" }
        }
        let missing = failure("58P01", "could not access file \"$libdir/timescaledb-2.17.2\": No such file or directory")
        #expect(missing?.hasPrefix("misconfigured") == true)
        #expect(missing?.contains("database db.lan:5432/health is at TimescaleDB 2.17.2 but the server has no timescaledb-2.17.2 library") == true)
        let disagree = failure("0A000", "extension \"timescaledb\" version mismatch: shared library version 2.28.3; SQL version 2.17.2")
        #expect(disagree?.hasPrefix("misconfigured") == true)
        #expect(disagree?.contains("disagree in database db.lan:5432/health") == true && disagree?.contains("catalog version 2.17.2 (SELECT") == true)
        let notPreloaded = failure("XX000", "extension \"timescaledb\" must be preloaded")
        #expect(notPreloaded?.hasPrefix("misconfigured") == true)
        #expect(notPreloaded?.contains("TimescaleDB is installed in database db.lan:5432/health but not preloaded") == true,
                "\(notPreloaded ?? "nil")")
        let reloaded = failure("42710", "\"timescaledb\" already loaded with a different version",
                               detail: "The new version is \"2.28.3\", this session is using version \"2.17.2\".")
        #expect(reloaded?.hasPrefix("unavailable") == true)
        #expect(failure("57P01", "terminating connection due to administrator command") == nil)
        #expect(failure("42501", "permission denied for table samples") == nil)
    }

    /// Hypertables made while TimescaleDB was preloaded, met by a server that no longer preloads
    /// it: `require_timescaledb: false` must not take them for plain tables, since every insert
    /// into them fails with FATAL and their compressed chunks read as empty (reference §6). The
    /// stand-in has no hypertable catalog: the test gives the database TimescaleDB's
    /// `_timescaledb_catalog.hypertable` (its columns that name a table) and lists `samples` in it.
    @Test func hypertablesOfAServerThatNoLongerPreloadsAreNotTakenForPlainTables() throws {
        try withDatabase { url, name, connection in
            let database = "127.0.0.1:\(PostgresTestDatabase.port ?? "")/\(name)"
            try connection.execute("""
                CREATE EXTENSION timescaledb VERSION '2.17.2'; CREATE SCHEMA _timescaledb_catalog;
                CREATE TABLE _timescaledb_catalog.hypertable (id serial PRIMARY KEY, schema_name name NOT NULL, table_name name NOT NULL)
                """)
            // Plain tables made without TimescaleDB stay usable as such.
            #expect(prepareError(url, requireTimescaledb: false) == nil)
            // Another schema's hypertables are not this sink's.
            try connection.execute("INSERT INTO _timescaledb_catalog.hypertable (schema_name, table_name) VALUES ('other', 'samples')")
            #expect(prepareError(url, requireTimescaledb: false) == nil)
            try connection.execute("INSERT INTO _timescaledb_catalog.hypertable (schema_name, table_name) VALUES ('health', 'samples')")
            for required in [false, true] {
                let refused = try #require(prepareError(url, requireTimescaledb: required))
                #expect(refused.contains("tables \"health\".\"samples\" are TimescaleDB hypertables, but TimescaleDB 2.17.2 is not "
                                            + "preloaded in database \(database)"), "\(refused)")
                #expect(refused.contains("add timescaledb to shared_preload_libraries in postgresql.conf and restart PostgreSQL"))
            }
        }
    }

    /// `by_range` and the generalized `create_hypertable` came in 2.13: an older catalog is
    /// refused with the update to make, before any DDL fails on a function it lacks.
    @Test func aCatalogOlderThan213IsRefusedWithTheUpdate() {
        #expect(TimescaleDBProbe.atLeast("2.13.0", [2, 13]) && TimescaleDBProbe.atLeast("2.17.2", [2, 13])
                && TimescaleDBProbe.atLeast("3.0", [2, 13]) && TimescaleDBProbe.atLeast("2.13.0-dev", [2, 13]))
        #expect(!TimescaleDBProbe.atLeast("2.12.2", [2, 13]) && !TimescaleDBProbe.atLeast("2.9.3", [2, 13])
                && !TimescaleDBProbe.atLeast("1.7.5", [2, 13]))
        let old = TimescaleDBProbe(catalogVersion: "2.11.2", availableVersion: "2.11.2", preloaded: true, license: "timescale")
        let problem = old.problem(database: "db.lan:5432/health")
        #expect(problem != nil)
        #expect(problem?.contains("TimescaleDB 2.11.2 in database db.lan:5432/health is older than 2.13") == true)
        #expect(problem?.contains("run ALTER EXTENSION timescaledb UPDATE") == true)
        #expect(problem?.hasSuffix("set require_timescaledb: false to create plain tables") == true)
        #expect(!old.isUsable)
        #expect(TimescaleDBProbe(catalogVersion: "2.17.2", availableVersion: "2.17.2", preloaded: true).problem(database: "d") == nil)
    }

    /// A catalog ahead of the server's default version (the package downgraded) has no update to
    /// run: the warning says what keeps the database working instead.
    @Test func aCatalogNewerThanTheServersDefaultIsNoPendingUpdate() {
        let ahead = TimescaleDBProbe(catalogVersion: "2.28.3", availableVersion: "2.17.2", preloaded: true).pendingUpdate
        #expect(ahead?.contains("catalog is at 2.28.3, newer than the server's default version 2.17.2") == true, "\(ahead ?? "nil")")
        #expect(ahead?.contains("keep the timescaledb-2.28.3 library installed") == true)
        #expect(ahead?.contains("ALTER EXTENSION") == false)
        let behind = TimescaleDBProbe(catalogVersion: "2.9.3", availableVersion: "2.17.2", preloaded: true).pendingUpdate
        #expect(behind?.contains("catalog is at 2.9.3 while 2.17.2 is installed: run ALTER EXTENSION timescaledb UPDATE") == true)
    }

    /// With a library preloaded whose name says timescaledb, the probe finds TimescaleDB usable and
    /// the sink runs its hypertable DDL: the stand-in's functions, declared with TimescaleDB's
    /// signatures, record that every call binds to them (the 2.13+ `create_hypertable` with
    /// `by_range`, not the deprecated form), with the intervals the config asks for, idempotently,
    /// and that a later start with another config changes the chunk interval and the policies.
    /// Compression and continuous aggregates are left out: plain PostgreSQL refuses their
    /// `timescaledb.*` table options.
    @Test func withTimescaleDBPreloadedTheHypertableDDLBindsToItsSignatures() throws {
        guard let (server, admin) = try PostgresServerFixture.withTimescaleDBStandIn(portOffset: 180) else { return }
        defer { admin.close() }
        func start(_ options: String) throws -> [String] {
            let config = try HealthRouterConfig.parse(yaml: """
                sinks:
                  tsdb:
                    type: timescaledb
                    url: "\(server.url)"
                    schema: health
                    \(options)
                """)
            let configuration = try ConfigDecoder.decode(TimescaleDBSink.Configuration.self,
                                                         from: try #require(config.sink(named: "tsdb")).options, path: "sinks.tsdb")
            let sink = TimescaleDBSink(configuration: configuration, context: ConformanceFixtures.context())
            defer { sink.close() }
            _ = try sink.prepare()
            #expect(sink.usesHypertables)
            try sink.write(ConformanceFixtures.entries([ConformanceFixtures.heartRate, ConformanceFixtures.sleep]), cursor: 2)
            let calls = try admin.execute("SELECT call FROM _timescaledb_internal.stand_in_calls ORDER BY seq")
            try admin.execute("TRUNCATE _timescaledb_internal.stand_in_calls")
            return (0..<calls.rowCount).compactMap { calls.text($0, 0) }
        }
        // INTERVAL '<n> seconds' as the server prints it: 7 days = 168 h; sparse tables at least 365 days;
        // retention 520 weeks = 87,360 h.
        func hypertables(_ samples: String) -> [String] {
            [("samples", samples), ("sleep_stages", "8760:00:00"), ("workouts", "8760:00:00")].map {
                "create_hypertable(health.\($0.0), by_range(start_at, \($0.1)), if_not_exists => t, migrate_data => t)"
            }
        }
        let tables = ["samples", "sleep_stages", "workouts"]
        let weekly = "chunk_time_interval: 7d\n    retention: { drop_after: 520w }"
        #expect(try start(weekly) == hypertables("168:00:00") + tables.map {
            "add_retention_policy(health.\($0), drop_after => 87360:00:00, if_not_exists => t)"
        })
        // Started again with the same config: the policies are there as the config says.
        #expect(try start(weekly) == hypertables("168:00:00"))
        // A new chunk interval applies to new chunks; a new drop_after replaces the policy, which
        // TimescaleDB's if_not_exists alone would keep.
        #expect(try start("chunk_time_interval: 14d\n    retention: { drop_after: 260w }")
                == hypertables("336:00:00") + ["set_chunk_time_interval(health.samples, 336:00:00)"] + tables.flatMap {
                    ["remove_retention_policy(health.\($0), if_exists => t)",
                     "add_retention_policy(health.\($0), drop_after => 43680:00:00, if_not_exists => t)"]
                })
        let dropAfter = try admin.execute("SELECT DISTINCT config->>'drop_after' FROM timescaledb_information.jobs")
        #expect(dropAfter.rowCount == 1 && dropAfter.text(0, 0) == "43680:00:00")
        // Retention taken out of the config stops dropping data.
        #expect(try start("chunk_time_interval: 14d") == hypertables("336:00:00") + tables.map {
            "remove_retention_policy(health.\($0), if_exists => t)"
        })
        #expect(try admin.execute("SELECT count(*) FROM timescaledb_information.jobs").int(0, 0) == 0)
        #expect(try admin.execute("SELECT count(*) FROM health.samples").int(0, 0) == 1)
    }

    /// Under TimescaleDB's `apache` license (Supabase builds it so) hypertables work, but the
    /// policies, compression and continuous aggregates do not (reference §7): the sink makes its
    /// hypertables, and refuses a config that asks for the rest, naming the license, before any
    /// policy call (the server's own refusal would name none of the options).
    @Test func underTheApacheLicenseHypertablesAreMadeAndPoliciesRefused() throws {
        guard let (server, admin) = try PostgresServerFixture.withTimescaleDBStandIn(portOffset: 220) else { return }
        defer { admin.close() }
        // A setting the loader defines on real TimescaleDB; here a placeholder the probe reads the same way.
        try admin.execute("ALTER DATABASE postgres SET timescaledb.license = 'apache'")
        func sink(_ options: String) throws -> TimescaleDBSink {
            let config = try HealthRouterConfig.parse(yaml: """
                sinks:
                  tsdb:
                    type: timescaledb
                    url: "\(server.url)"
                    schema: health
                    \(options)
                """)
            let configuration = try ConfigDecoder.decode(TimescaleDBSink.Configuration.self,
                                                         from: try #require(config.sink(named: "tsdb")).options, path: "sinks.tsdb")
            return TimescaleDBSink(configuration: configuration, context: ConformanceFixtures.context())
        }
        for options in ["retention: { drop_after: 520w }", "compression: { after: 180d }", "daily_aggregates: true"] {
            guard case SinkError.misconfigured(let reason)? = SinkFixtures.prepareError(try sink(options)) else {
                Issue.record("\(options): not refused as misconfigured")
                continue
            }
            #expect(reason.contains("need TimescaleDB's community license; this server runs license apache: remove them"))
        }
        #expect(try admin.execute("SELECT count(*) FROM _timescaledb_internal.stand_in_calls WHERE call LIKE 'add_%'").int(0, 0) == 0)
        let plain = try sink("chunk_time_interval: 30d")
        defer { plain.close() }
        _ = try plain.prepare()
        #expect(plain.usesHypertables)
        try plain.write(ConformanceFixtures.entries([ConformanceFixtures.heartRate]), cursor: 1)
        let made = try admin.execute("SELECT count(*) FROM timescaledb_information.dimensions WHERE hypertable_schema = 'health'")
        #expect(made.int(0, 0) == 3)
    }

    /// On PostgreSQL 15.20 TimescaleDB's scheduler fails every job (reference §5): the policies
    /// the sink adds would silently never run. The failures are in `timescaledb_information.job_errors`,
    /// which the stand-in lacks: the test gives its server one with TimescaleDB's columns and the
    /// error recorded on 2.17.2 and 2.28.3, and the warning names each job and the `run_job` to cron.
    @Test func jobsTheSchedulerFailsOn1520AreToldWithTheWorkaround() throws {
        guard let (server, admin) = try PostgresServerFixture.withTimescaleDBStandIn(portOffset: 240) else { return }
        defer { admin.close() }
        let connection = try PostgresConnection(url: server.url)
        defer { connection.close() }
        // No such view (the stand-in, an older TimescaleDB): nothing to say, and nothing fails.
        #expect(TimescaleDBPolicies.stalledJobs(on: connection) == nil)
        try admin.execute("""
            CREATE TABLE timescaledb_information.job_errors (job_id integer, proc_schema name, proc_name name, pid integer,
                start_time timestamptz, finish_time timestamptz, sqlerrcode text, err_message text);
            INSERT INTO timescaledb_information.job_errors VALUES
                (1000, '_timescaledb_functions', 'policy_retention', 4242, now() - INTERVAL '1 hour', now() - INTERVAL '1 hour',
                 '24000', 'cannot drop portal "" while it is being set up'),
                (1000, '_timescaledb_functions', 'policy_retention', 4243, now() - INTERVAL '2 hours', now() - INTERVAL '2 hours',
                 '24000', 'cannot drop portal "" while it is being set up'),
                (1001, '_timescaledb_functions', 'policy_compression', 4244, now() - INTERVAL '5 days', now() - INTERVAL '5 days',
                 '24000', 'cannot drop portal "" while it is being set up'),
                (1002, '_timescaledb_functions', 'policy_refresh_continuous_aggregate', 4245, now(), now(), '57014',
                 'canceling statement due to statement timeout')
            """)
        let warning = try #require(TimescaleDBPolicies.stalledJobs(on: connection))
        // Job 1000 once; 1001's failure is old, 1002 failed otherwise.
        #expect(warning.hasPrefix("TimescaleDB's scheduler failed job 1000 (policy_retention) with 'cannot drop portal"), "\(warning)")
        #expect(warning.hasSuffix("run them from cron in a client session: CALL run_job(1000);"))
        // The sink starts all the same.
        let sink = TimescaleDBSink(configuration: .init(url: server.url, schema: "health"), context: ConformanceFixtures.context())
        defer { sink.close() }
        _ = try sink.prepare()
        #expect(sink.usesHypertables)
    }

    /// The errors a server gives once the TimescaleDB loader is in play, as recorded on 2.17.2 and
    /// 2.28.3, each turned into what is wrong and how to fix it.
    @Test func libraryFailuresNameTheVersionsAndTheFix() {
        let database = "db.lan:5432/health"
        func message(_ sqlState: String, _ text: String, detail: String? = nil) -> String {
            TimescaleDBProbe.mismatchMessage(PostgresError(sqlState: sqlState, message: text, detail: detail, operation: "SELECT 1"),
                                             catalog: "2.17.2", database: database)
        }
        let missing = message("58P01", "could not access file \"$libdir/timescaledb-2.17.2\": No such file or directory")
        #expect(missing.contains("database \(database) is at TimescaleDB 2.17.2 but the server has no timescaledb-2.17.2 library"))
        #expect(missing.contains("install the TimescaleDB 2.17.2 package") && missing.contains("ALTER EXTENSION timescaledb UPDATE"))

        let reloaded = message("42710", "\"timescaledb\" already loaded with a different version",
                               detail: "The new version is \"2.28.3\", this session is using version \"2.17.2\".")
        #expect(reloaded.contains("TimescaleDB was updated while this session had the old library loaded"))
        #expect(reloaded.contains("the next connection will load the new one"))

        // Not preloaded is not a disagreement: the fix is the preload alone.
        let notPreloaded = message("XX000", "extension \"timescaledb\" must be preloaded")
        #expect(notPreloaded.contains("TimescaleDB 2.17.2 is installed in database \(database) but not preloaded"))
        #expect(notPreloaded.contains("add timescaledb to shared_preload_libraries in postgresql.conf and restart PostgreSQL"))
        #expect(!notPreloaded.contains("disagree"))

        let text = "extension \"timescaledb\" version mismatch: shared library version 2.28.3; SQL version 2.17.2"
        let mismatch = message("0A000", text)
        #expect(mismatch.contains("TimescaleDB library and catalog disagree in database \(database): \(text)"))
        #expect(mismatch.contains("catalog version 2.17.2") && mismatch.contains("restart PostgreSQL"))
        #expect(mismatch.contains("ALTER EXTENSION timescaledb UPDATE as the first command of a fresh session"))
        #expect(!mismatch.contains("shared_preload_libraries"))

        // PostgreSQL's own check (dfmgr.c) of a library built for another major version: its
        // detail names both, and the fix is the package for this server, not the catalog.
        let otherMajor = TimescaleDBProbe.mismatchMessage(
            PostgresError(sqlState: "XX000", message: "incompatible library \"/usr/lib/postgresql/15/lib/timescaledb-2.17.2.so\": version mismatch",
                          detail: "Server is version 15, library is version 16.", operation: "SELECT 1"),
            catalog: "2.17.2", database: database)
        #expect(otherMajor.contains("was built for another PostgreSQL") && otherMajor.contains("Server is version 15, library is version 16."))
        #expect(otherMajor.contains("install the TimescaleDB package built for this server's PostgreSQL major version"))
        #expect(!otherMajor.contains("disagree"))

        // A missing or disagreeing library needs a person (an import stops at once); a session that
        // had the old library, or another failure, may pass on the next connection (retried).
        func kind(_ sqlState: String, _ text: String) -> String {
            let error = TimescaleDBProbe.mismatchError(PostgresError(sqlState: sqlState, message: text, detail: nil, operation: "SELECT 1"),
                                                       catalog: "2.17.2", database: database)
            return String("\(error)".prefix { $0 != ":" })
        }
        #expect(kind("58P01", "could not access file \"$libdir/timescaledb-2.17.2\"") == "misconfigured")
        #expect(kind("XX000", "extension \"timescaledb\" must be preloaded") == "misconfigured")
        #expect(kind("0A000", "extension \"timescaledb\" version mismatch: shared library version 2.28.3") == "misconfigured")
        #expect(kind("XX000", "incompatible library \"/usr/lib/postgresql/15/lib/timescaledb-2.17.2.so\": version mismatch") == "misconfigured")
        #expect(kind("42710", "\"timescaledb\" already loaded with a different version") == "unavailable")
        #expect(kind("57P01", "terminating connection due to administrator command") == "unavailable")
    }
}
