import Foundation
import Glibc
import HealthRouterCore
import Testing
import TestSupport

/// A daemon started on a state directory while an import delivers there (the import began first,
/// found no daemon, and writes the sinks itself) opens no sink until the import ends, then goes on
/// from the cursors it left: both had delivered every batch, the receiver got each sample twice,
/// and `status` counted each batch twice in the sink's rows written.
@Suite struct LateDaemonTests {
    @Test func aDaemonStartedDuringAnImportLeavesTheDeliveryToIt() throws {
        let receiver = try PulsoStandInServer(holdsFirstPost: true)
        defer { receiver.stop() }
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.xml"
        try CommandRunner.generateExport(records: 50, to: export, zip: false, quirks: false)
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              mirror: { type: http, url: "http://127.0.0.1:\(receiver.port)" }
            """, in: directory)
        let importing = try CommandRunner.start(["import", export, "--config", config, "--quiet"], in: directory)
        #expect(eventually(within: 30) { receiver.firstPostArrived }, "the import sent nothing")

        // The import's first batch is held by the receiver: a daemon starts on the same state directory.
        let logFile = directory + "/daemon.log"
        let daemon = try CommandRunner.start(["run", "--config", config], in: directory, shellSetup: "exec 2>'\(logFile)'")
        defer {
            if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) }
            if importing.isRunning { kill(importing.processIdentifier, SIGKILL) }
        }
        var daemonLog: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }
        let waiting = "a healthrouter import (pid \(importing.processIdentifier)) delivers to this sink (it began before this "
            + "daemon): waiting for it to end"
        #expect(eventually(within: 30) { daemonLog.contains(waiting) }, "\(daemonLog)")
        #expect(receiver.received.isEmpty, "the daemon delivered beside the import: \(receiver.received.count) samples")
        receiver.releaseFirstPost()
        importing.waitUntilExit()
        #expect(importing.terminationStatus == 0)
        // The daemon takes over once the import ended, and finds nothing left to deliver.
        #expect(eventually(within: 30) { daemonLog.contains("ended: delivering from the cursor it left") }, "\(daemonLog)")
        kill(daemon.processIdentifier, SIGTERM)
        daemon.waitUntilExit()

        let received = receiver.received
        #expect(!received.isEmpty)
        #expect(received.count == Set(received).count, "samples delivered twice: \(received.count - Set(received).count)")
        let status = try CommandRunner.run(["status", "--config", config, "--format", "json"], in: directory)
        let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let sink = try #require((json?["sinks"] as? [[String: Any]])?.first, "\(status.stdout)")
        #expect(sink["written"] as? Int == Set(received).count, "\(status.stdout)")
    }

    /// The daemon's sinks the delivering import's config lacks are delivered to at once: only the
    /// import's own sinks wait for it (a daemon waited on every sink until the import ended).
    @Test func aDaemonDeliversAtOnceToTheSinksTheImportLacks() throws {
        let receiver = try PulsoStandInServer(holdsFirstPost: true)
        defer { receiver.stop() }
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.xml"
        try CommandRunner.generateExport(records: 50, to: export, zip: false, quirks: false)
        let mirror = "  mirror: { type: http, url: \"http://127.0.0.1:\(receiver.port)\" }\n"
        let importConfig = try writeConfig("state_directory: \(directory)/state\nsinks:\n" + mirror, in: directory)
        let daemonConfig = directory + "/daemon.yaml"
        try ("state_directory: \(directory)/state\nsinks:\n" + mirror + "  local: { type: sqlite, path: \(directory)/health.sqlite }\n")
            .write(toFile: daemonConfig, atomically: true, encoding: .utf8)
        let importing = try CommandRunner.start(["import", export, "--config", importConfig, "--quiet"], in: directory)
        #expect(eventually(within: 30) { receiver.firstPostArrived }, "the import sent nothing")

        let logFile = directory + "/daemon.log"
        let daemon = try CommandRunner.start(["run", "--config", daemonConfig], in: directory, shellSetup: "exec 2>'\(logFile)'")
        defer {
            if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) }
            if importing.isRunning { kill(importing.processIdentifier, SIGKILL) }
        }
        var daemonLog: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }
        func localRows() -> Int {
            guard let database = try? SQLiteDatabase(path: directory + "/health.sqlite", readOnly: true),
                  let count = try? database.prepare("SELECT count(*) FROM samples"), (try? count.step()) == true else { return 0 }
            return Int(count.string(0) ?? "0") ?? 0
        }
        // While the import's first batch to the mirror is held, the daemon fills `local`.
        #expect(eventually(within: 30) { localRows() > 0 }, "\(daemonLog)")
        #expect(importing.isRunning)
        let waiting = daemonLog.split(separator: "\n").filter { $0.contains("waiting for it to end") }
        #expect(waiting.count == 1 && waiting[0].contains("mirror"), "\(daemonLog)")
        #expect(receiver.received.isEmpty, "the daemon delivered to the mirror beside the import")
        receiver.releaseFirstPost()
        importing.waitUntilExit()
        #expect(importing.terminationStatus == 0)
        #expect(eventually(within: 30) { daemonLog.contains("ended: delivering from the cursor it left") }, "\(daemonLog)")
        kill(daemon.processIdentifier, SIGTERM)
        daemon.waitUntilExit()
        let received = receiver.received
        #expect(!received.isEmpty && received.count == Set(received).count, "\(received.count) received, \(Set(received).count) ids")
    }
}
