import TestSupport
import Foundation
import Glibc
import Testing

/// One import at a time on a state directory: a second waits for the first, saying so. Two at
/// once had each taken what the other journaled meanwhile for part of its own input, and kept a
/// sample an overlapping export changed twice.
@Suite struct ImportLockTests {
    @Test func aSecondImportWaitsForTheFirst() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.xml"
        try CommandRunner.generateExport(records: 50, to: export, zip: false, quirks: false)
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/health.sqlite }
            """, in: directory)
        // This test holds the lock, as a running import would.
        let held = try holdImportLock(in: directory + "/state")
        let log = directory + "/import.log"
        let process = try CommandRunner.start(["import", export, "--config", config, "-q"], in: directory, shellSetup: "exec 2>'\(log)'")
        var stderr: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        #expect(eventually(within: 30) {
            stderr.contains("another import (pid 4242) is running on the state directory \(directory)/state: waiting for it to end")
        }, "\(stderr)")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(process.isRunning)
        #expect(!FileManager.default.fileExists(atPath: directory + "/health.sqlite"))
        close(held)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(stderr)")
        #expect(FileManager.default.fileExists(atPath: directory + "/health.sqlite"))
    }

    /// A migration while an import writes the stores (every sink, itself) copies part of what it
    /// will hold: it warns with the import's pid (it copied 388,310 of 1,000,067 samples in silence).
    @Test func aMigrationBesideAnImportWarns() throws {
        let directory = makeTemporaryDirectory()
        let export = directory + "/export.xml"
        try CommandRunner.generateExport(records: 50, to: export, zip: false, quirks: false)
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlite, path: \(directory)/health.sqlite }
              copy: { type: sqlite, path: \(directory)/copy.sqlite }
            routes:
              - types: ["*"]
                to: [local]
            """, in: directory)
        #expect(try CommandRunner.run(["import", export, "--config", config, "-q"], in: directory).status == 0)
        let held = try holdImportLock(in: directory + "/state")
        defer { close(held) }
        let result = try CommandRunner.run(["migrate", "--from", "local", "--to", "copy", "--config", config], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: a healthrouter import (pid 4242) uses this state directory and may write 'local' "
                                       + "or 'copy' during the migration"), "\(result.stderr)")
    }
}
