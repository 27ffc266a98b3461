import Foundation
import Testing
import TestSupport

/// A backfill from the journal while another process grows it (a daemon's pushes; here an
/// import on the same state directory): its progress line, drawn on a terminal, takes the
/// journal's head as its total once it reaches the head it started with, instead of staying at
/// 100 % of the entries it started with while it writes the new ones.
@Suite struct BackfillProgressLineTests {
    /// The heart-rate samples `range` numbers, as NDJSON: ids `P-<n>`, a second apart.
    static func samples(_ range: Range<Int>) -> String {
        range.map {
            #"{"uuid":"P-\#($0)","type":"heartRate","start":"2026-07-06T08:\#(String(format: "%02d", $0 / 60)):\#(String(format: "%02d", $0 % 60))Z","#
                + #""end":"2026-07-06T08:\#(String(format: "%02d", $0 / 60)):\#(String(format: "%02d", $0 % 60))Z","value":60,"source":"W"}"#
        }.joined(separator: "\n") + "\n"
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script (bsdutils)"))
    func theTotalGrowsWithTheJournal() throws {
        // The backfill's first body is held until 30 more entries are journaled; every body is
        // answered 0.4 s late, so the line is drawn after each (at most every quarter second).
        let receiver = try PulsoStandInServer(holdsFirstPost: true, delay: 0.4)
        defer { receiver.stop() }
        let directory = makeTemporaryDirectory()
        try Self.samples(0..<30).write(toFile: directory + "/first.ndjson", atomically: true, encoding: .utf8)
        try Self.samples(30..<60).write(toFile: directory + "/more.ndjson", atomically: true, encoding: .utf8)
        // Two configs on one state directory: one journals (with a sink of its own), one forwards.
        let journaling = directory + "/journaling.yaml"
        try """
            state_directory: \(directory)/state
            sinks:
              lake: { type: ndjson, directory: \(directory)/lake }
            """.write(toFile: journaling, atomically: true, encoding: .utf8)
        let forwarding = directory + "/forwarding.yaml"
        try """
            state_directory: \(directory)/state
            sinks:
              mirror: { type: http, url: "http://127.0.0.1:\(receiver.port)" }
            """.write(toFile: forwarding, atomically: true, encoding: .utf8)
        let first = try CommandRunner.run(["import", "first.ndjson", "--config", journaling, "--quiet"], in: directory)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")

        // On a terminal (`script`), so that the line is drawn.
        let (backfill, output) = try CommandRunner.startOnTerminal(["backfill", "mirror", "--batch-size", "10", "--config", forwarding],
                                                                   in: directory)
        #expect(eventually(within: 30) { receiver.firstPostArrived }, "the backfill sent nothing")
        let more = try CommandRunner.run(["import", "more.ndjson", "--config", journaling, "--quiet"], in: directory)
        #expect(more.status == 0, "\(more.stdout)\(more.stderr)")
        receiver.releaseFirstPost()
        let screen = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        backfill.waitUntilExit()
        #expect(backfill.terminationStatus == 0, "\(screen)")
        #expect(Set(receiver.received).count == 60, "\(receiver.received)")

        // Each draw returns to the line's start, then clears what is left of it after the text.
        let draws = screen.components(separatedBy: "\r").filter { $0.count > 3 && $0.hasSuffix("\u{1B}[K") }.map { $0.dropLast(3) }
        // The first body's entries of the 30 it started with; once past them, of the 60 there are
        // now (it would stay at 30 / 30, 100 %, while it wrote the rest).
        #expect(draws.first?.hasPrefix("backfilling mirror: 10 / 30 entries  33%  10 samples written") == true, "\(draws)")
        let grown = draws.filter { $0.contains(" / 60 entries  ") }
        #expect(!grown.isEmpty && draws.allSatisfy { $0.contains(" / 30 entries  ") || $0.contains(" / 60 entries  ") }, "\(draws)")
        #expect(!draws.contains { $0.contains("30 / 30 entries  100%") }, "\(draws)")
    }
}
