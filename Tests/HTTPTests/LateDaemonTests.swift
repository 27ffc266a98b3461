import Foundation
import Glibc
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
}
