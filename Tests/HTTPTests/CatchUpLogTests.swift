import Foundation
import HealthRouterCore
import Testing
import TestSupport

/// A sink added to the config of a big journal: `healthrouter run` says in its log that the sink
/// is catching up, with how many entries, and when it has (91 s of silence before, at 4.7M
/// entries). An import shows its own progress line: its workers log none of it.
@Suite("catch-up log lines", .serialized)
struct CatchUpLogTests {
    @Test func aSinkAddedToABigJournalSaysItCatchesUpAndWhenItHas() throws {
        let directory = TestScratch.path + "daemon-\(UUID().uuidString)"
        let first = try DaemonProcess(directory: directory, sinks: DaemonProcess.localSink(in: directory))
        try first.start()
        for round in 0..<4 {
            let batch = DaemonProcess.batch(prefix: "C\(round)", count: 3_000)
            #expect(first.client.post("/ingest", batch.body, token: DaemonProcess.token, gzip: true).status == 200)
        }
        let journal = try Journal(stateDirectory: directory + "/state", role: .reader)
        let head = try journal.head()
        #expect(head == 12_000)
        let deadline = Date(timeIntervalSinceNow: 60)
        while (try journal.cursor(sink: "local") ?? 0) < head, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(first.stop() == 0, "\(first.log)")
        // Kept up as the pushes came: no backlog to speak of.
        #expect(!first.log.contains("catching up"), "\(first.log)")

        // An import's worker that catches up the same backlog leaves it to the import's own progress.
        let lakeSink = "  lake:\n    type: ndjson\n    directory: \(directory)/lake\n"
        let withLake = try DaemonProcess(directory: directory, sinks: DaemonProcess.localSink(in: directory, more: lakeSink))
        let dumped = try CommandRunner.run(["dump", "--config", directory + "/config.yaml", "--output", directory + "/all.ndjson"],
                                           in: directory, environment: ["TEST_TOKEN": DaemonProcess.token])
        #expect(dumped.status == 0, "\(dumped.stderr)")
        let imported = try CommandRunner.run(["import", directory + "/all.ndjson", "--config", directory + "/config.yaml",
                                              "--log-level", "info"], in: directory, environment: ["TEST_TOKEN": DaemonProcess.token])
        #expect(imported.status == 0 && imported.stdout.contains("lake   ndjson  12,000 rows written, caught up"),
                "\(imported.stdout)\(imported.stderr)")
        #expect(!imported.stderr.contains("catching up") && !imported.stderr.contains("caught up sink="), "\(imported.stderr)")
        withExtendedLifetime(withLake) {}

        // The daemon with a sink added: it says so at the start and at the end, with the counts.
        let lateSink = lakeSink + "  late:\n    type: sqlite\n    path: \(directory)/late.sqlite\n"
        let daemon = try DaemonProcess(directory: directory, sinks: DaemonProcess.localSink(in: directory, more: lateSink))
        try daemon.start()
        let caughtUp = Date(timeIntervalSinceNow: 60)
        while !daemon.log.contains("caught up sink=late"), Date() < caughtUp { Thread.sleep(forTimeInterval: 0.1) }
        #expect(daemon.stop() == 0, "\(daemon.log)")
        let lines = daemon.log.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("info: catching up: ") && $0.contains(" sink=late ") && $0.contains(" entries=12000 ")
                                 && $0.contains(" cursor=0 ") && $0.hasSuffix(" head=12000") }, "\(daemon.log)")
        #expect(lines.contains { $0.hasPrefix("info: caught up sink=late seconds=") && $0.hasSuffix(" entries=12000 rows_written=12000") },
                "\(daemon.log)")
        // The sinks that had caught up before say nothing of it.
        #expect(!lines.contains { $0.contains("catching up") && !$0.contains("sink=late") }, "\(daemon.log)")
    }
}
