import Foundation
import Testing
import TestSupport

/// Under systemd, whose journal takes each line of standard error as an entry, the error that
/// ends a command (`run` failing to start: a config error, a state directory it cannot write) is
/// one line with its hint after `; hint:`, as the log lines are: its hint was an entry of its own,
/// shown alone by `journalctl -n 1`.
@Suite struct JournalStreamTests {
    @Test func anErrorIsOneLineWhenStandardErrorIsTheJournal() throws {
        let directory = makeTemporaryDirectory()
        let config = try writeConfig("""
            state_directory: \(directory)/state
            sinks:
              local: { type: sqlitex, path: \(directory)/state/health.sqlite }
            """, in: directory)
        let output = directory + "/stderr"
        // What systemd does for a service whose standard error is the journal: JOURNAL_STREAM names
        // that descriptor's device and inode (a socket there; this file here).
        let journal = try CommandRunner.run(["run", "--config", config], in: directory,
                                            shellSetup: "exec 2>'\(output)'; export JOURNAL_STREAM=$(stat -c %d:%i '\(output)')")
        #expect(journal.status == 78)
        let line = try String(contentsOfFile: output, encoding: .utf8)
        #expect(line == "healthrouter: config error: \(config):3:18: sinks.local.type: unknown sink type 'sqlitex'; "
                    + "hint: did you mean 'sqlite'?\n", "\(line)")
        // Inherited by a command whose standard error is elsewhere (run by hand from a service's
        // shell, into a file): two lines, as on a terminal.
        let elsewhere = try CommandRunner.run(["run", "--config", config], in: directory,
                                              environment: ["JOURNAL_STREAM": "8:12345"])
        #expect(elsewhere.status == 78)
        #expect(elsewhere.stderr.hasSuffix("unknown sink type 'sqlitex'\n  hint: did you mean 'sqlite'?\n"), "\(elsewhere.stderr)")
    }
}
