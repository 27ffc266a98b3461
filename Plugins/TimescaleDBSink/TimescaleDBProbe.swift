import HealthRouterCore
import PostgresClient

/// What the server says about TimescaleDB right after connecting, and whether the sink can
/// use it. Run on every new connection (`prepare`).
struct TimescaleDBProbe {
    /// The version the database's catalog is at (`pg_extension.extversion`); nil when not installed.
    var catalogVersion: String?
    /// The version of the extension scripts installed on the server (`default_version`); nil when unavailable.
    var availableVersion: String?
    var preloaded = false
    /// `timescale` (all features) or `apache` (no compression, policies or continuous aggregates).
    var license: String?

    /// Hypertables can be created (installed, preloaded, at least `minimumVersion`).
    var isUsable: Bool { catalogVersion.map { preloaded && Self.atLeast($0, Self.minimumVersion) } ?? false }
    /// Compression, policies and continuous aggregates are available.
    var hasCommunityFeatures: Bool { license == nil || license == "timescale" }

    /// Probes `connection` (a library that fails to load has failed the connection before:
    /// `libraryFailure`).
    static func run(on connection: PostgresConnection) throws -> TimescaleDBProbe {
        var probe = TimescaleDBProbe()
        let available = try connection.query(
            "SELECT default_version FROM pg_available_extensions WHERE name = 'timescaledb'")
        probe.availableVersion = available.rowCount > 0 ? available.text(0, 0) : nil
        // shared_preload_libraries is readable by superusers and pg_read_all_settings only; for
        // other roles, the setting the preloaded loader defines tells the same. Defined, it is in
        // pg_settings; a value for it given without the loader (`ALTER ROLE … SET
        // "timescaledb.disable_load"`, as some managed services do) is a placeholder, which
        // current_setting reads too but pg_settings does not list.
        let installed = try connection.query("""
            SELECT e.extversion,
                   CASE WHEN pg_has_role(current_user, 'pg_read_all_settings', 'USAGE')
                        THEN current_setting('shared_preload_libraries') ~ 'timescaledb'
                        ELSE EXISTS (SELECT 1 FROM pg_settings WHERE name = 'timescaledb.disable_load') END,
                   current_setting('timescaledb.license', true)
            FROM pg_extension e WHERE e.extname = 'timescaledb'
            """)
        if installed.rowCount > 0 {
            probe.catalogVersion = installed.text(0, 0)
            probe.preloaded = installed.bool(0, 1) ?? false
            probe.license = installed.text(0, 2)
        }
        return probe
    }

    /// The loader opens the library of the catalog's version at a session's first statement
    /// (`PostgresConnection` sets the session up with one), so a missing or disagreeing library
    /// fails the connection itself, before any probe: that failure, as `mismatchError` tells it,
    /// or nil when `error` is something else. The catalog version is read from the error's text
    /// (`$libdir/timescaledb-2.17.2`, `SQL version 2.17.2`); the database from its operation
    /// (`connect to host:port/db`).
    static func libraryFailure(_ error: PostgresError) -> SinkError? {
        let text = error.message + " " + (error.detail ?? "")
        let fromTimescaleDB = text.contains("$libdir/timescaledb-") || (text.contains("timescaledb")
            && ["version mismatch", "must be preloaded", "already loaded with a different version", "incompatible library"]
                .contains { text.contains($0) })
        guard fromTimescaleDB else { return nil }
        func version(after marker: String) -> String? {
            guard let range = text.range(of: marker) else { return nil }
            let version = text[range.upperBound...].prefix { $0.isNumber || $0.isLetter || $0 == "." || $0 == "-" }
            return version.isEmpty ? nil : String(version)
        }
        let catalog = version(after: "$libdir/timescaledb-") ?? version(after: "SQL version ")
            ?? version(after: "this session is using version \"")
        let prefix = "connect to "
        let database = error.operation.hasPrefix(prefix) ? String(error.operation.dropFirst(prefix.count)) : error.operation
        return mismatchError(error, catalog: catalog, database: database)
    }

    /// The failure of the versioned library to load as the worker should treat it: a missing library
    /// or a library the catalog disagrees with needs a person (`misconfigured`); a session that
    /// still had the old library, or any other failure, may pass on the next connection.
    static func mismatchError(_ error: PostgresError, catalog: String?, database: String) -> SinkError {
        let message = mismatchMessage(error, catalog: catalog, database: database)
        let text = error.message + " " + (error.detail ?? "")
        let permanent = error.sqlState == "58P01" || text.contains("$libdir/timescaledb-")
            || (["version mismatch", "must be preloaded", "incompatible library"].contains { text.contains($0) }
                && error.sqlState != "42710")
        return permanent ? .misconfigured(message) : .unavailable(message)
    }

    /// The explanation for a failure of the versioned library to load; `catalog` is the
    /// database's TimescaleDB version, when known.
    static func mismatchMessage(_ error: PostgresError, catalog: String?, database: String) -> String {
        let text = error.message + " " + (error.detail ?? "")
        if let catalog, error.sqlState == "58P01" || text.contains("$libdir/timescaledb-") {
            return "database \(database) is at TimescaleDB \(catalog) but the server has no timescaledb-\(catalog) "
                + "library (\(error.message)): install the TimescaleDB \(catalog) package for this PostgreSQL "
                + "major version next to the newer one, or run ALTER EXTENSION timescaledb UPDATE as the first "
                + "command of a fresh session (psql -X) to move the catalog to the installed version"
        }
        if error.sqlState == "42710" || text.contains("already loaded with a different version") {
            return "TimescaleDB was updated while this session had the old library loaded (\(error.message)); "
                + "the next connection will load the new one"
        }
        if text.contains("must be preloaded") {
            return "TimescaleDB\(catalog.map { " " + $0 } ?? "") is installed in database \(database) but not preloaded "
                + "(\(error.message)): add timescaledb to shared_preload_libraries in postgresql.conf and restart PostgreSQL"
        }
        // PostgreSQL's own check of a library's magic block (dfmgr.c): built for another major
        // version (its detail names both), or another ABI.
        if text.contains("incompatible library") {
            return "the TimescaleDB library the server loads for database \(database) was built for another PostgreSQL "
                + "(\([error.message, error.detail].compactMap { $0 }.joined(separator: " "))): install the TimescaleDB "
                + "package built for this server's PostgreSQL major version (SHOW server_version) and restart PostgreSQL"
        }
        if text.contains("version mismatch") {
            return "TimescaleDB library and catalog disagree in database \(database): \(error.message). "
                + "Make the installed package match the catalog "
                + "version \(catalog.map { $0 + " " } ?? "")(SELECT extversion FROM pg_extension WHERE extname = 'timescaledb') "
                + "and restart PostgreSQL, or run ALTER EXTENSION timescaledb UPDATE as the first command of a fresh "
                + "session (psql -X) to move the catalog to the installed version"
        }
        return "\(error)"
    }

    /// Why hypertables cannot be created, with the fix, or nil when they can. `required`: the sink
    /// refuses plain tables (`require_timescaledb`), so setting it false is one of the fixes.
    func problem(database: String, required: Bool = true) -> String? {
        let orPlain = required ? ", or set require_timescaledb: false to create plain tables" : ""
        guard let catalog = catalogVersion else {
            if let availableVersion {
                return "the timescaledb extension (\(availableVersion)) is available but not installed in database "
                    + "\(database): run CREATE EXTENSION timescaledb; as a superuser" + orPlain
            }
            return "the server has no timescaledb extension: install TimescaleDB and add timescaledb to "
                + "shared_preload_libraries" + orPlain
        }
        if !preloaded {
            return "TimescaleDB \(catalog) is installed in database \(database) but not preloaded: add timescaledb to "
                + "shared_preload_libraries in postgresql.conf and restart PostgreSQL"
        }
        if !Self.atLeast(catalog, Self.minimumVersion) {
            return "TimescaleDB \(catalog) in database \(database) is older than \(Self.minimumVersion.map(String.init).joined(separator: ".")), "
                + "the first with create_hypertable(…, by_range(…)), which the sink calls: install TimescaleDB 2.13 or later "
                + "and run ALTER EXTENSION timescaledb UPDATE as the first command of a fresh session (psql -X)" + orPlain
        }
        return nil
    }

    /// The oldest TimescaleDB the sink's DDL runs on: `by_range` and the generalized
    /// `create_hypertable` came in 2.13.
    static let minimumVersion = [2, 13]

    /// Whether `version` (`2.17.2`, `2.13.0-dev`) is `minimum` or later; a version that does not
    /// start with numbers is taken as later (the server's DDL then says what it lacks).
    static func atLeast(_ version: String, _ minimum: [Int]) -> Bool {
        let parts = version.split(separator: ".").map { Int($0.prefix { $0.isNumber }) }
        guard let major = parts.first ?? nil else { return true }
        let numbers = [major] + parts.dropFirst().map { $0 ?? 0 }
        for (index, wanted) in minimum.enumerated() {
            let have = index < numbers.count ? numbers[index] : 0
            if have != wanted { return have > wanted }
        }
        return true
    }

    /// The sink's tables in `schema` that TimescaleDB's catalog (`_timescaledb_catalog.hypertable`,
    /// a plain table readable without the library) lists as hypertables. Asked when TimescaleDB is
    /// installed but not preloaded: such tables cannot be written (every insert fails with
    /// `FATAL: extension "timescaledb" must be preloaded`), and their compressed chunks read as
    /// empty, so plain-table mode (`require_timescaledb: false`) must not take them as plain.
    static func hypertables(in schema: String, on connection: PostgresConnection) throws -> [String] {
        // Looked up in pg_class: to_regclass fails outright on a schema the role may not use. A
        // catalog the role may not read (TimescaleDB grants it to PUBLIC) tells nothing.
        let readable = try connection.query(
            "SELECT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                + "WHERE n.nspname = '_timescaledb_catalog' AND c.relname = 'hypertable' "
                + "AND has_schema_privilege(n.oid, 'USAGE') AND has_table_privilege(c.oid, 'SELECT'))")
        guard readable.bool(0, 0) == true else { return [] }
        let found = try connection.query(
            "SELECT table_name::text FROM _timescaledb_catalog.hypertable WHERE schema_name = $1 "
                + "AND table_name IN ('samples', 'sleep_stages', 'workouts') ORDER BY 1", [schema])
        return (0..<found.rowCount).compactMap { found.text($0, 0) }
    }

    /// A pending `ALTER EXTENSION … UPDATE`, worth a warning.
    ///
    /// A catalog newer than the server's default version (a package downgraded, or a default the
    /// control file pins) is no update to run: `ALTER EXTENSION … UPDATE` cannot go back.
    var pendingUpdate: String? {
        guard let catalogVersion, let availableVersion, catalogVersion != availableVersion else { return nil }
        let parts = { (version: String) in version.split(separator: ".").map { Int($0.prefix { $0.isNumber }) ?? 0 } }
        if Self.atLeast(catalogVersion, parts(availableVersion)) {
            return "TimescaleDB catalog is at \(catalogVersion), newer than the server's default version \(availableVersion) "
                + "(pg_available_extensions): keep the timescaledb-\(catalogVersion) library installed (a downgraded "
                + "package loses it, and every statement in this database then fails), and install TimescaleDB "
                + "\(catalogVersion) or later for this PostgreSQL"
        }
        return "TimescaleDB catalog is at \(catalogVersion) while \(availableVersion) is installed: run "
            + "ALTER EXTENSION timescaledb UPDATE as the first command of a fresh session (psql -X), alone"
    }
}
