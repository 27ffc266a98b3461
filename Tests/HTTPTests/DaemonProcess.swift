import Foundation
import HealthRouterCore
import TestSupport

/// The real `healthrouter run` executable (built next to the test bundle) on a random
/// loopback port, with an http_push source and a sqlite sink in a temp directory (and, when
/// asked, an `admin` source on another random loopback port).
final class DaemonProcess {
    static let executable = CommandRunner.executable

    let directory: String
    private(set) var port: UInt16
    /// The admin listener's port (nil: no admin source).
    private(set) var adminPort: UInt16?
    /// Whether `port` was picked at random (and another may be picked when it is taken).
    private let randomPort: Bool
    private(set) var process: Process?
    private var logFile: FileHandle?

    static let token = "daemon-token-42"

    /// A port for a test's listener: below Linux's ephemeral range (32768–60999), from which the
    /// tests' own client connections take theirs, so that a listener rarely finds its port taken.
    static func randomListenPort() -> UInt16 { UInt16.random(in: 20000...32000) }

    /// `sinks`: the config's `sinks:` and `routes:` sections (default: one sqlite sink, `local`).
    /// `admin`: also run an `admin` source (`ops`).
    init(directory: String? = nil, port: UInt16? = nil, sinks: String? = nil, admin: Bool = false) throws {
        let directory = directory ?? TestScratch.path + "daemon-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
        randomPort = port == nil
        self.port = port ?? DaemonProcess.randomListenPort()
        adminPort = admin ? DaemonProcess.randomListenPort() : nil
        let adminSource = adminPort.map { """
              ops:
                type: admin
                listen: 127.0.0.1:\($0)

            """ } ?? ""
        let config = """
            state_directory: \(directory)/state
            sources:
              phone:
                type: http_push
                listen: 127.0.0.1:\(self.port)
                users:
                  alice: { token: "${TEST_TOKEN}" }

            """ + adminSource + (sinks ?? """
            sinks:
              local:
                type: sqlite
                path: \(directory)/health.sqlite
            routes:
              - types: ["*"]
                to: [local]
            """)
        try config.write(toFile: directory + "/config.yaml", atomically: true, encoding: .utf8)
    }

    /// A `sinks:` section with the sqlite sink `local` in `directory`, then `more` (sinks' YAML at
    /// the same indentation), after `preamble` (top-level keys such as `journal:`).
    static func localSink(in directory: String, preamble: String = "", more: String = "") -> String {
        preamble + """
            sinks:
              local:
                type: sqlite
                path: \(directory)/health.sqlite

            """ + more
    }

    /// A daemon in a new temporary directory whose sinks are the sqlite sink `local` and the
    /// ndjson sink `lake` (its folder `<directory>/lake`).
    static func withNDJSONSink() throws -> DaemonProcess {
        let directory = TestScratch.path + "daemon-\(UUID().uuidString)"
        return try DaemonProcess(directory: directory, sinks: localSink(in: directory, more: """
              lake:
                type: ndjson
                directory: \(directory)/lake
            """))
    }

    /// A daemon in a new temporary directory whose sinks are the sqlite sink `local` and an http
    /// sink `name` posting to `url`, with `options` (`timeout: 12s`, one a line) besides.
    static func withHTTPSink(_ name: String, url: String, options: [String] = []) throws -> DaemonProcess {
        let directory = TestScratch.path + "daemon-\(UUID().uuidString)"
        let sink = (["  \(name):", "    type: http", "    url: \(url)"] + options.map { "    " + $0 }).joined(separator: "\n") + "\n"
        return try DaemonProcess(directory: directory, sinks: localSink(in: directory, more: sink))
    }

    var client: HTTPTestClient { HTTPTestClient(port: port) }
    /// A client of the admin listener (port 0, refused everywhere, without one).
    var adminClient: HTTPTestClient { HTTPTestClient(port: adminPort ?? 0) }

    /// Whether `run` reads its config from a pipe (`--config <(cat config.yaml)`) instead of the file.
    var configThroughPipe = false

    /// Shell commands bash runs before it execs the daemon (`exec >&- 2>&-`, `ulimit -c 0`).
    var shellSetup: String?

    /// A command the daemon runs under (`SyscallTrace.tracer`, ending in `--`).
    var tracer: String?

    /// `run`'s `--log-level` (`info`, `debug`), when not its default; not with `configThroughPipe`,
    /// `shellSetup`, `tracer` or `configFound`.
    var logLevel: String?

    /// Whether `run` finds its config as `./healthrouter.yaml` (a link to config.yaml, in the
    /// daemon's directory) instead of `--config`.
    var configFound = false

    /// Starts the daemon and waits until `/health` answers and the admin source (if any) listens.
    /// Random ports that something else took meanwhile (another test's listener, a client's
    /// ephemeral port) are replaced by others.
    func start() throws {
        for _ in 0..<5 {
            let process = try launch()
            let deadline = Date(timeIntervalSinceNow: 10)
            while Date() < deadline {
                // Its own listener: another test's daemon may answer on the same random port while
                // this one exits 69 for it. The admin source starts after the push one: until it
                // logs, its port refuses connections though /health answers.
                let adminListens = adminPort.map { log.contains("admin listening") && log.contains("127.0.0.1:\($0)") } ?? true
                if log.contains("listening"), log.contains("127.0.0.1:\(port)"), adminListens, process.isRunning,
                   client.get("/health").status == 200 { return }
                guard process.isRunning else { break }
                usleep(20_000)
            }
            if process.isRunning { break }  // no answer in time
            process.waitUntilExit()
            self.process = nil
            guard randomPort, process.terminationReason == .exit, process.terminationStatus == 69 else { break }
            let path = directory + "/config.yaml"
            let next = DaemonProcess.randomListenPort()
            var config = try String(contentsOfFile: path, encoding: .utf8)
                .replacingOccurrences(of: "listen: 127.0.0.1:\(port)\n", with: "listen: 127.0.0.1:\(next)\n")
            port = next
            if let adminPort {
                let nextAdmin = DaemonProcess.randomListenPort()
                config = config.replacingOccurrences(of: "listen: 127.0.0.1:\(adminPort)\n", with: "listen: 127.0.0.1:\(nextAdmin)\n")
                self.adminPort = nextAdmin
            }
            try config.write(toFile: path, atomically: true, encoding: .utf8)
        }
        throw DaemonFailed(log: self.log)
    }

    /// Starts the daemon without waiting.
    @discardableResult
    func launch() throws -> Process {
        let process = Process()
        if configThroughPipe {
            // bash hands the config over as /dev/fd/N and execs: the process is the daemon itself.
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", #"exec "$0" run --config <(cat "$1")"#, Self.executable, directory + "/config.yaml"]
        } else if let shellSetup {
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", shellSetup + #"; exec "$0" run --config "$1""#, Self.executable, directory + "/config.yaml"]
        } else if let tracer {
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", "exec \(tracer) \"$0\" run --config \"$1\"", Self.executable, directory + "/config.yaml"]
        } else if configFound {
            let found = directory + "/healthrouter.yaml"
            if !FileManager.default.fileExists(atPath: found) {
                try FileManager.default.createSymbolicLink(atPath: found, withDestinationPath: directory + "/config.yaml")
            }
            process.executableURL = URL(fileURLWithPath: Self.executable)
            process.arguments = ["run"]
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
        } else {
            process.executableURL = URL(fileURLWithPath: Self.executable)
            process.arguments = ["run", "--config", directory + "/config.yaml"] + (logLevel.map { ["--log-level", $0] } ?? [])
        }
        var environment = ProcessInfo.processInfo.environment
        environment["TEST_TOKEN"] = Self.token
        process.environment = environment
        _ = FileManager.default.createFile(atPath: directory + "/daemon.log", contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/daemon.log"))
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        logFile = log
        try process.run()
        self.process = process
        return process
    }

    /// Sends `signal` and waits for the exit; returns the exit status.
    @discardableResult
    func stop(signal: Int32 = SIGTERM) -> Int32 {
        guard let process else { return -1 }
        // Under a tracer, the daemon itself (strace, started by a process that blocks the signal,
        // keeps it blocked and would not pass it on): the pid its lock file records.
        let traced = tracer == nil ? nil : (try? String(contentsOfFile: directory + "/state/daemon.lock", encoding: .utf8))
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        kill(traced ?? process.processIdentifier, signal)
        process.waitUntilExit()
        self.process = nil
        try? logFile?.close()
        return process.terminationStatus
    }

    var log: String { (try? String(contentsOfFile: directory + "/daemon.log", encoding: .utf8)) ?? "" }

    /// Every row of `table` in the sqlite sink, as text, sorted (for comparing two stores).
    func sinkRows(_ table: String) throws -> [String] {
        let database = try SQLiteDatabase(path: directory + "/health.sqlite", readOnly: true)
        let info = try database.prepare("SELECT name FROM pragma_table_info('\(table)')")
        var columns: [String] = []
        while try info.step() { columns.append("quote(\(info.string(0) ?? "NULL"))") }
        let statement = try database.prepare("SELECT \(columns.joined(separator: " || '|' || ")) FROM \(table)")
        var rows: [String] = []
        while try statement.step() { rows.append(statement.string(0) ?? "") }
        return rows.sorted()
    }

    /// The ids in the sqlite sink's `samples` table.
    func sinkIds() throws -> Set<String> {
        guard FileManager.default.fileExists(atPath: directory + "/health.sqlite") else { return [] }
        let database = try SQLiteDatabase(path: directory + "/health.sqlite", readOnly: true)
        let statement = try database.prepare("SELECT id FROM samples")
        var ids = Set<String>()
        while try statement.step() { ids.insert(statement.string(0) ?? "") }
        return ids
    }

    deinit {
        if process != nil { stop(signal: SIGKILL) }
    }

    struct DaemonFailed: Error, CustomStringConvertible {
        var log: String
        var description: String { "the daemon did not start:\n\(log)" }
    }

    /// A Pulso batch of `count` heart-rate samples with ids `<prefix>-<n>`; the source name
    /// carries the prefix too, so batches of different prefixes are different readings.
    static func batch(prefix: String, count: Int, offset: Int = 0) -> (body: [UInt8], ids: [String]) {
        var text = "["
        var ids: [String] = []
        ids.reserveCapacity(count)
        for index in 0..<count {
            let id = "\(prefix)-\(index + offset)"
            ids.append(id)
            let second = (index + offset) % 60, minute = ((index + offset) / 60) % 60, hour = ((index + offset) / 3600) % 24
            let time = "2026-07-06T\(pad(hour)):\(pad(minute)):\(pad(second))+01:00"
            if index > 0 { text += "," }
            text += #"{"uuid":"\#(id)","type":"heartRate","start":"\#(time)","end":"\#(time)","value":\#(50 + index % 90),"unit":"count/min","source":"Apple Watch \#(prefix)","sourceBundleId":"com.apple.health.X"}"#
        }
        return (Array((text + "]").utf8), ids)
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
}
