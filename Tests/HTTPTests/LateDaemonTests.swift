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
        let run = try ImportWithLateDaemon()
        let waiting = "a healthrouter import (pid \(run.importing.processIdentifier)) delivers to this sink (it began before this "
            + "daemon): waiting for it to end"
        #expect(eventually(within: 30) { run.daemonLog.contains(waiting) }, "\(run.daemonLog)")
        #expect(run.receiver.received.isEmpty, "the daemon delivered beside the import: \(run.receiver.received.count) samples")
        try run.finish()

        let received = run.receiver.received
        #expect(!received.isEmpty)
        #expect(received.count == Set(received).count, "samples delivered twice: \(received.count - Set(received).count)")
        let status = try CommandRunner.run(["status", "--config", run.importConfig, "--format", "json"], in: run.directory)
        let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let sink = try #require((json?["sinks"] as? [[String: Any]])?.first, "\(status.stdout)")
        #expect(sink["written"] as? Int == Set(received).count, "\(status.stdout)")
    }

    /// The daemon's sinks the delivering import's config lacks are delivered to at once: only the
    /// import's own sinks wait for it (a daemon waited on every sink until the import ended).
    @Test func aDaemonDeliversAtOnceToTheSinksTheImportLacks() throws {
        let run = try ImportWithLateDaemon(daemonSinks: "local: { type: sqlite, path: health.sqlite }")
        func localRows() -> Int {
            guard let database = try? SQLiteDatabase(path: run.directory + "/health.sqlite", readOnly: true),
                  let count = try? database.prepare("SELECT count(*) FROM samples"), (try? count.step()) == true else { return 0 }
            return Int(count.string(0) ?? "0") ?? 0
        }
        // While the import's first batch to the mirror is held, the daemon fills `local`.
        #expect(eventually(within: 30) { localRows() > 0 }, "\(run.daemonLog)")
        #expect(run.importing.isRunning)
        let waiting = run.daemonLog.split(separator: "\n").filter { $0.contains("waiting for it to end") }
        #expect(waiting.count == 1 && waiting[0].contains("mirror"), "\(run.daemonLog)")
        #expect(run.receiver.received.isEmpty, "the daemon delivered to the mirror beside the import")
        try run.finish()
        let received = run.receiver.received
        #expect(!received.isEmpty && received.count == Set(received).count, "\(received.count) received, \(Set(received).count) ids")
    }
}

/// An import of a 50-record export to `mirror`, a Pulso stand-in that holds the import's first
/// batch, and a daemon started on the same state directory meanwhile, with the mirror and
/// `daemonSinks` (one more sink, written as a line under `sinks:`); the daemon's log in a file.
private final class ImportWithLateDaemon {
    let receiver: PulsoStandInServer
    let directory = makeTemporaryDirectory()
    let importConfig: String
    let importing: Process
    let daemon: Process
    var daemonLog: String { (try? String(contentsOfFile: directory + "/daemon.log", encoding: .utf8)) ?? "" }

    init(daemonSinks: String? = nil) throws {
        let receiver = try PulsoStandInServer(holdsFirstPost: true)
        self.receiver = receiver
        let directory = directory
        let export = directory + "/export.xml"
        try CommandRunner.generateExport(records: 50, to: export, zip: false, quirks: false)
        let sinks = "state_directory: \(directory)/state\nsinks:\n  mirror: { type: http, url: \"http://127.0.0.1:\(receiver.port)\" }\n"
        importConfig = try writeConfig(sinks, in: directory)
        var daemonConfig = importConfig
        if let daemonSinks {
            daemonConfig = directory + "/daemon.yaml"
            try (sinks + "  " + daemonSinks + "\n").write(toFile: daemonConfig, atomically: true, encoding: .utf8)
        }
        importing = try CommandRunner.start(["import", export, "--config", importConfig, "--quiet"], in: directory)
        #expect(eventually(within: 30) { receiver.firstPostArrived }, "the import sent nothing")
        // The import's first batch is held by the receiver: a daemon starts on the same state directory.
        daemon = try CommandRunner.start(["run", "--config", daemonConfig], in: directory,
                                         shellSetup: "exec 2>'\(directory)/daemon.log'")
    }

    /// Lets the import's first batch through, waits for the import to end and the daemon to take
    /// over (finding nothing left to deliver), and stops the daemon.
    func finish() throws {
        receiver.releaseFirstPost()
        importing.waitUntilExit()
        #expect(importing.terminationStatus == 0)
        #expect(eventually(within: 30) { daemonLog.contains("ended: delivering from the cursor it left") }, "\(daemonLog)")
        kill(daemon.processIdentifier, SIGTERM)
        daemon.waitUntilExit()
    }

    deinit {
        if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) }
        if importing.isRunning { kill(importing.processIdentifier, SIGKILL) }
        receiver.stop()
    }
}
