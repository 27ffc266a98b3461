import TestSupport
import Foundation
import Glibc
import Testing

/// `--log-format json`: every line a command writes to standard error is one JSON object, its
/// notes, warnings, retries and summaries too, and the last line of a failed command carries its
/// `exit_code`; with the text format those lines stay as they were.
@Suite struct JSONLogFormatTests {
    /// The JSON objects of `stderr`, after checking that each of its lines is one (a line that is
    /// not is reported with the whole of it).
    @discardableResult
    static func jsonLines(_ stderr: String, _ command: String) -> [[String: Any]] {
        #expect(stderr.isEmpty || stderr.hasSuffix("\n"), "\(command): \(stderr)")
        var objects: [[String: Any]] = []
        for line in stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            #expect(object != nil, "\(command): not a JSON object: \(line)\n\(stderr)")
            if let object { objects.append(object) }
        }
        return objects
    }

    static func messages(_ objects: [[String: Any]]) -> [String] { objects.compactMap { $0["message"] as? String } }

    /// A journal pruned in part (a first import with `retain: 0s`, a second with 30 days) dumped
    /// with an unknown type, and backfilled: the warning, the pruned notes and the summary.
    @Test func dumpAndBackfillNotesAreJSON() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 50, to: directory + "/first.xml", zip: false, quirks: false, seed: 3)
        try CommandRunner.generateExport(records: 50, to: directory + "/second.xml", zip: false, quirks: false, seed: 4)
        let sinks = """
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/state/health.sqlite }

            """
        let pruning = try writeConfig(sinks + "journal: { retain: 0s }\n", in: directory)
        #expect(try CommandRunner.run(["import", "first.xml", "--config", pruning, "-q"], in: directory).status == 0)
        let config = try writeConfig(sinks + "journal: { retain: 30d }\n", in: directory)
        #expect(try CommandRunner.run(["import", "second.xml", "--config", config, "-q"], in: directory).status == 0)

        let dump = ["dump", "--types", "fooBarBaz", "--config", config]
        let json = try CommandRunner.run(dump + ["--log-format", "json"], in: directory)
        #expect(json.status == 0, "\(json.stderr)")
        let objects = Self.jsonLines(json.stderr, "dump")
        let messages = Self.messages(objects)
        #expect(messages.count == 3, "\(json.stderr)")
        #expect(messages.first?.hasPrefix("--types: 'fooBarBaz' is no known type") == true, "\(json.stderr)")
        #expect(objects.first?["level"] as? String == "warning", "\(json.stderr)")
        #expect(messages.contains { $0.hasPrefix("journal entries before ") && $0.hasSuffix("for everything") }, "\(json.stderr)")
        #expect(messages.last?.hasPrefix("dumped 0 samples and 0 tombstones from the journal") == true, "\(json.stderr)")
        #expect(objects.last?["samples"] as? Int == 0, "\(json.stderr)")
        // The text form, as it was.
        let text = try CommandRunner.run(dump, in: directory)
        let lines = text.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(text.stderr)")
        #expect(lines.first == "healthrouter: warning: --types: 'fooBarBaz' is no known type, short key or group; it selects "
                    + "only a type with exactly this identifier", "\(text.stderr)")
        #expect(lines.dropFirst().first.map { $0.hasPrefix("healthrouter: note: journal entries before ")
                    && $0.hasSuffix(" were pruned (journal.retain); dump a sink with --from SINK for everything") } == true,
                "\(text.stderr)")
        #expect(lines.last?.hasPrefix("dumped 0 samples and 0 tombstones from the journal (types fooBarBaz) to standard output in ")
                    == true, "\(text.stderr)")

        let backfill = try CommandRunner.run(["backfill", "local", "--config", config, "--log-format", "json"], in: directory)
        #expect(backfill.status == 0, "\(backfill.stderr)")
        #expect(Self.messages(Self.jsonLines(backfill.stderr, "backfill")).contains { $0.hasPrefix("journal entries before ") },
                "\(backfill.stderr)")
    }

    /// A state directory whose journal holds an export, and a config with a sink `mirror` whose
    /// store answers its health check but refuses every batch (`RefusingStore`).
    static func journalAndRefusingMirror(_ directory: String, store: RefusingStore) throws -> String {
        try CommandRunner.generateExport(records: 50, to: directory + "/export.xml", zip: false, quirks: false)
        let local = """
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/state/health.sqlite }

            """
        #expect(try CommandRunner.run(["import", "export.xml", "--config", try writeConfig(local, in: directory), "-q"],
                                      in: directory).status == 0)
        return try writeConfig(local + "  mirror: { type: http, url: \"http://127.0.0.1:\(store.port)\", token: t }\n", in: directory)
    }

    /// A sink whose store fails every write: the backfill that resumes, the migration that starts
    /// over, with their retries, and the import, whose last line carries exit code 1.
    @Test func retriesOfAFailingSinkAreJSON() throws {
        let directory = makeTemporaryDirectory()
        let store = try RefusingStore()
        defer { store.stop() }
        let config = try Self.journalAndRefusingMirror(directory, store: store)
        let imported = try CommandRunner.run(["import", "export.xml", "--config", config, "-q", "--log-format", "json"], in: directory)
        #expect(imported.status == 1, "\(imported.stderr)")
        let last = Self.jsonLines(imported.stderr, "import").last
        #expect(last?["exit_code"] as? Int == 1, "\(imported.stderr)")
        #expect((last?["message"] as? String)?.hasPrefix("gave up on sink 'mirror': ") == true, "\(imported.stderr)")

        // An interrupted backfill of this run resumes; one of another migration starts over.
        try FileManager.default.createDirectory(atPath: directory + "/state/runs", withIntermediateDirectories: true)
        try "1\nfrom=journal \n\n".write(toFile: directory + "/state/runs/backfill-mirror.cursor", atomically: false, encoding: .utf8)
        let backfill = try CommandRunner.run(["backfill", "mirror", "--config", config, "--log-format", "json"], in: directory)
        #expect(backfill.status == 1, "\(backfill.stderr)")
        var objects = Self.jsonLines(backfill.stderr, "backfill")
        #expect(Self.messages(objects).first == "resuming the backfill of 'mirror' after position 1", "\(backfill.stderr)")
        let retries = objects.filter { ($0["message"] as? String)?.contains("trying again in") == true }
        #expect(retries.count == 4, "\(backfill.stderr)")
        #expect(retries.first?["attempt"] as? Int == 2 && retries.first?["sink"] as? String == "mirror", "\(backfill.stderr)")
        #expect(objects.last?["exit_code"] as? Int == 1, "\(backfill.stderr)")

        try "5\nsince 2001-01-01T00:00:00Z\n7\n".write(toFile: directory + "/state/runs/migrate-local-to-mirror.cursor",
                                                       atomically: false, encoding: .utf8)
        let migrate = try CommandRunner.run(["migrate", "--from", "local", "--to", "mirror", "--config", config, "--log-format", "json"],
                                            in: directory)
        #expect(migrate.status == 1, "\(migrate.stderr)")
        objects = Self.jsonLines(migrate.stderr, "migrate")
        let messages = Self.messages(objects)
        #expect(messages.first?.hasPrefix("an earlier migration local → mirror (since 2001-01-01T00:00:00Z) did not finish") == true,
                "\(migrate.stderr)")
        #expect(messages.filter { $0.contains("trying again in") }.count == 4, "\(migrate.stderr)")
        #expect(objects.last?["exit_code"] as? Int == 1, "\(migrate.stderr)")

        // An interrupted run without options is named without empty parentheses.
        try "5\n\n\n".write(toFile: directory + "/state/runs/migrate-local-to-mirror.cursor", atomically: false, encoding: .utf8)
        let narrowed = try CommandRunner.run(["migrate", "--from", "local", "--to", "mirror", "--since", "2001-01-01",
                                              "--config", config, "--log-format", "json"], in: directory)
        #expect(Self.messages(Self.jsonLines(narrowed.stderr, "migrate")).first?
            .hasPrefix("an earlier migration local → mirror did not finish; starting over") == true, "\(narrowed.stderr)")
    }

    /// The text form of a backfill's resume and retry lines, as they were.
    @Test func retriesOfAFailingSinkInTextAreAsBefore() throws {
        let directory = makeTemporaryDirectory()
        let store = try RefusingStore()
        defer { store.stop() }
        let config = try Self.journalAndRefusingMirror(directory, store: store)
        try FileManager.default.createDirectory(atPath: directory + "/state/runs", withIntermediateDirectories: true)
        try "1\nfrom=journal \n\n".write(toFile: directory + "/state/runs/backfill-mirror.cursor", atomically: false, encoding: .utf8)
        let backfill = try CommandRunner.run(["backfill", "mirror", "--config", config], in: directory)
        #expect(backfill.status == 1, "\(backfill.stderr)")
        let lines = backfill.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "resuming the backfill of 'mirror' after position 1", "\(backfill.stderr)")
        #expect(lines.dropFirst().first.map { $0.hasPrefix("sink 'mirror': unavailable: ")
                    && $0.hasSuffix("; trying again in 0.5 s (attempt 2 of 5)") } == true, "\(backfill.stderr)")
        #expect(lines.dropFirst(5).first?.hasPrefix("healthrouter: the backfill of 'mirror' stopped: ") == true, "\(backfill.stderr)")
        #expect(lines.last == "  hint: run the same command again to resume after 1", "\(backfill.stderr)")

        // Stopped before the sink acknowledged a batch: the hint names no resume point ("to resume
        // after 0"), as the run starts from the beginning.
        let fresh = try CommandRunner.run(["backfill", "mirror", "--restart", "--config", config], in: directory)
        #expect(fresh.status == 1, "\(fresh.stderr)")
        #expect(fresh.stderr.split(separator: "\n").last
                    == "  hint: run the same command again (nothing was delivered yet: it starts from the beginning)", "\(fresh.stderr)")
    }

    /// A misconfigured sink ends the import with 78, on a line that says so.
    @Test func anImportWithAMisconfiguredSinkEndsWithItsExitCode() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 50, to: directory + "/export.xml", zip: false, quirks: false)
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/state/health.sqlite }
              broken: { type: sqlite, path: /proc/healthrouter-none/health.sqlite }
            """, in: directory)
        let json = try CommandRunner.run(["import", "export.xml", "--config", config, "-q", "--log-format", "json"], in: directory)
        #expect(json.status == 78, "\(json.stderr)")
        let last = Self.jsonLines(json.stderr, "import").last
        #expect(last?["exit_code"] as? Int == 78, "\(json.stderr)")
        #expect((last?["message"] as? String)?.hasPrefix("gave up on sink 'broken': misconfigured") == true, "\(json.stderr)")
        // The text form has no such line: the summary says it.
        let text = try CommandRunner.run(["import", "export.xml", "--config", config, "-q"], in: directory)
        #expect(text.status == 78 && !text.stderr.contains("gave up on"), "\(text.stderr)")
    }

    /// Counts are JSON numbers, text stays text: the export's summary line (items by kind, the
    /// locale) of an import logged at info.
    @Test func countsInTheLogAreNumbers() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 50, to: directory + "/export.xml", zip: false, quirks: false)
        let imported = try CommandRunner.run(["import", "export.xml", "-q", "--log-format", "json", "--log-level", "info"],
                                             in: directory)
        #expect(imported.status == 0, "\(imported.stderr)")
        let read = Self.jsonLines(imported.stderr, "import").first { ($0["message"] as? String)?.hasPrefix("read ") == true }
        let line = try #require(read, "\(imported.stderr)")
        #expect((line["quantity"] as? Int).map { $0 > 0 } == true && line["locale"] as? String == "en_US", "\(line)")
    }

    /// A sink's cursor is a number too, as the daemon's `sink stopped` line writes it: the sqlite
    /// sink's `opened` line at debug (none before the store has one), where it was `"cursor":"2"`.
    @Test func aSinksCursorInTheLogIsANumber() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 20, to: directory + "/export.xml", zip: false, quirks: false)
        func opened() throws -> [String: Any] {
            let imported = try CommandRunner.run(["import", "export.xml", "-q", "--log-format", "json", "--log-level", "debug"],
                                                 in: directory)
            #expect(imported.status == 0, "\(imported.stderr)")
            let line = Self.jsonLines(imported.stderr, "import").first { ($0["message"] as? String)?.hasPrefix("opened ") == true }
            return try #require(line, "\(imported.stderr)")
        }
        let first = try opened()
        #expect(first["cursor"] == nil, "\(first)")
        let again = try opened()
        #expect((again["cursor"] as? Int).map { $0 > 0 } == true, "\(again)")
    }

    /// An import waiting for another says so in JSON.
    @Test func anImportWaitingForAnotherSaysSoInJSON() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 50, to: directory + "/export.xml", zip: false, quirks: false)
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/health.sqlite }
            """, in: directory)
        let held = try holdImportLock(in: directory + "/state")
        let log = directory + "/import.log"
        let process = try CommandRunner.start(["import", "export.xml", "--config", config, "-q", "--log-format", "json"],
                                              in: directory, shellSetup: "exec 2>'\(log)'")
        var logged: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        #expect(eventually(within: 30) { logged.contains("another import (pid 4242)") }, "\(logged)")
        close(held)
        process.waitUntilExit()
        let stderr = logged
        #expect(process.terminationStatus == 0, "\(stderr)")
        let objects = Self.jsonLines(stderr, "import")
        #expect(Self.messages(objects).first?.hasPrefix("another import (pid 4242) is running on the state directory") == true,
                "\(stderr)")
    }

    /// On a terminal, the progress lines of an import and a backfill are drawn with the text format
    /// only: a JSON log has no line of them.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script (bsdutils)"))
    func noProgressLineIsDrawnWithJSON() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 300, to: directory + "/export.xml", zip: false, quirks: false)
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/state/health.sqlite }
            """, in: directory)
        let erase = "\u{1B}[K"
        let imported = try ProgressLineTests.onTerminal(["import", "export.xml", "--config", config, "--log-format", "json"],
                                                        in: directory)
        #expect(imported.status == 0 && !imported.screen.contains(erase), "\(imported.screen)")
        let backfill = ["backfill", "local", "--batch-size", "10", "--config", config]
        let json = try ProgressLineTests.onTerminal(backfill + ["--log-format", "json"], in: directory)
        #expect(json.status == 0 && !json.screen.contains(erase), "\(json.screen)")
        let text = try ProgressLineTests.onTerminal(backfill, in: directory)
        #expect(text.status == 0 && text.screen.contains("backfilling local: "), "\(text.screen)")
    }
}

/// An HTTP store that answers its health check and refuses every batch with 503, as an overloaded
/// server does: a sink on it opens, then fails every write (python3's http.server, on a port the
/// system picks).
final class RefusingStore {
    private let process = Process()
    let port: Int

    init() throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import http.server
            class Store(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers(); self.wfile.write(b"ok")
                def do_POST(self):
                    self.rfile.read(int(self.headers.get("Content-Length") or 0))
                    self.send_response(503); self.send_header("Content-Length", "0"); self.end_headers()
                def log_message(self, *arguments): pass
            server = http.server.HTTPServer(("127.0.0.1", 0), Store)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            if more.isEmpty { break }
            line.append(more)
        }
        port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Ends the server: SIGKILL, as a test process's blocked signals are the child's too (SIGTERM would wait).
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
