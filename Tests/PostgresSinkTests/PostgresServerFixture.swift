import Foundation
import TestSupport
import PostgresClient

/// A PostgreSQL server of one test's own, which the test may stop and start again: the server of
/// `scripts/with-postgres.sh` is shared by every test. Debian's binaries (the newest
/// `/usr/lib/postgresql/*/bin`), a throwaway data directory, loopback, trust; run as `postgres`
/// when the tests run as root (initdb and the server refuse root). The server is this process's
/// child, not a daemon (`pg_ctl start` would leave `Process.waitUntilExit` waiting), and is stopped
/// by its shutdown signals. Removed when the fixture goes away.
final class PostgresServerFixture {
    let directory: String
    private(set) var port = 0
    private let binaries: String
    /// Server settings (`-c name=value` each) the server starts with.
    private let settings: [String]
    private var server: Process?

    /// A libpq conninfo for the server's `postgres` database.
    var url: String { "host=127.0.0.1 port=\(port) dbname=postgres user=postgres sslmode=disable" }

    /// Initializes and starts a server on the first free port from `firstPort`, with `settings`
    /// (`shared_preload_libraries=…`); nil when Debian's PostgreSQL binaries are not there.
    init?(firstPort: Int, settings: [String] = []) throws {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let newest = versions.compactMap(Int.init).max() else { return nil }
        binaries = "/usr/lib/postgresql/\(newest)/bin"
        self.settings = settings
        directory = TestScratch.path + "hr-pg-fixture-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        if getuid() == 0 { try FileManager.default.setAttributes([.ownerAccountName: "postgres"], ofItemAtPath: directory) }
        let initdb = Self.process(binaries + "/initdb", ["-D", directory + "/data", "-A", "trust", "-U", "postgres"])
        try initdb.run()
        initdb.waitUntilExit()
        guard initdb.terminationStatus == 0 else {
            try? FileManager.default.removeItem(atPath: directory)
            throw PostgresFixtureError(message: "initdb exited \(initdb.terminationStatus)")
        }
        for candidate in firstPort..<(firstPort + 20) {
            port = candidate
            if (try? start()) != nil { return }
        }
        try? FileManager.default.removeItem(atPath: directory)
        throw PostgresFixtureError(message: "no PostgreSQL could start on ports \(firstPort)–\(firstPort + 19)")
    }

    /// A server of its own that preloads the library `scripts/with-postgres.sh` named for the
    /// TimescaleDB stand-in, with the extension created in its `postgres` database (a connection
    /// to it is returned); nil without the stand-in or a test database. Ports from the shared
    /// server's + `portOffset`.
    static func withTimescaleDBStandIn(portOffset: Int) throws -> (server: PostgresServerFixture, admin: PostgresConnection)? {
        guard PostgresTestDatabase.url != nil, let port = PostgresTestDatabase.port.flatMap(Int.init),
              PostgresTestDatabase.environment("PG_FAKE_TIMESCALEDB") != nil,
              let library = PostgresTestDatabase.environment("PG_FAKE_TIMESCALEDB_LIBRARY"),
              let server = try PostgresServerFixture(firstPort: port + portOffset, settings: ["shared_preload_libraries=\(library)"])
        else { return nil }
        let admin = try PostgresConnection(url: server.url)
        try admin.execute("CREATE EXTENSION timescaledb")
        return (server, admin)
    }

    deinit {
        if server != nil { stop(mode: "immediate") }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts the server and waits until it accepts connections (at most 30 s).
    func start() throws {
        let log = directory + "/postgres.log"
        if !FileManager.default.fileExists(atPath: log) { _ = FileManager.default.createFile(atPath: log, contents: nil) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        output.seekToEndOfFile()
        // No Unix socket (`-k ''`): tests connect over TCP, and a socket's path in the temporary
        // folder can pass the 107 bytes a socket's name may have (the server then fails to start).
        let process = Self.process(binaries + "/postgres", ["-D", directory + "/data", "-p", String(port), "-k", "",
                                                            "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"]
                                                           + settings.flatMap { ["-c", $0] })
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if !process.isRunning { throw PostgresFixtureError(message: "PostgreSQL exited: see \(log)") }
            if let connection = try? PostgresConnection(url: url, connectTimeoutSeconds: 1) {
                connection.close()
                server = process
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.interrupt()
        process.waitUntilExit()
        throw PostgresFixtureError(message: "PostgreSQL did not accept connections within 30 s: see \(log)")
    }

    /// Stops the server and waits until it has: `fast` (SIGINT) ends every session first,
    /// `immediate` (SIGQUIT) as a crash would (recovery at the next start).
    func stop(mode: String = "fast") {
        guard let server else { return }
        kill(server.processIdentifier, mode == "immediate" ? SIGQUIT : SIGINT)
        server.waitUntilExit()
        self.server = nil
    }

    /// `tool` with `arguments`, as `postgres` when this process runs as root (`setpriv` execs, so
    /// the process is the tool itself and gets its signals).
    private static func process(_ tool: String, _ arguments: [String]) -> Process {
        let process = Process()
        if getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", tool] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return process
    }
}

struct PostgresFixtureError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
