import TestSupport
import Foundation
import Testing

/// What reaches the disk before what, seen in the system calls of a real import (strace): a killed
/// process loses nothing the page cache holds, so only the order of fsyncs shows that a power cut
/// loses nothing acknowledged either.
@Suite struct DurabilityTraceTests {
    static let calls = ["mkdir", "mkdirat", "openat", "write", "writev", "pwrite64", "fsync", "fdatasync"]

    /// A folder made through `mkdirat` (glibc's `mkdir` on arm64, which has no `mkdir` call) is
    /// named by its path, under the folder its descriptor names when relative: it had none, and the
    /// test above stopped the whole test process at its `!` there.
    @Test func aFolderMadeThroughMkdiratIsNamedByItsPath() throws {
        let trace = makeTemporaryDirectory() + "/trace.txt"
        try """
            4242  mkdirat(AT_FDCWD</work/here>, "new/lake", 0755) = 0
            4242  mkdirat(AT_FDCWD</work/here>, "/abs/state", 0700) = 0
            4242  mkdir("/old/style", 0755) = 0
            4242  fsync(5</work/here/new>) = 0

            """.write(toFile: trace, atomically: true, encoding: .utf8)
        #expect(try SyscallTrace(contentsOf: trace).calls.map(\.path) == ["/work/here/new/lake", "/abs/state", "/old/style", "/work/here/new"])
    }

    /// Every folder the import makes (the state directory and the stores' folders, with the folders
    /// missing on their way) has its parent synced after it was made (its entry on disk); every
    /// ndjson file is fsynced, and the folder holding a new one, before the folder's index (its
    /// cursor) commits.
    @Test(.enabled(if: SyscallTrace.isAvailable, "needs strace, and ptrace allowed"))
    func foldersAndNDJSONLinesAreSyncedBeforeTheCursorMoves() throws {
        let directory = makeTemporaryDirectory()
        try CommandRunner.generateExport(records: 3000, to: directory + "/export.xml", zip: false, quirks: false)
        let lake = directory + "/new/lake"
        let config = try writeConfig("""
            state_directory: \(directory)/new/deeper/state
            sinks:
              local: { type: sqlite, path: \(directory)/new/stores/health.sqlite }
              lake: { type: ndjson, directory: \(lake) }
            """, in: directory)
        let output = directory + "/trace.txt"
        let result = try CommandRunner.run(["import", "export.xml", "--config", config, "-q"], in: directory,
                                           shellSetup: SyscallTrace.tracing(Self.calls, into: output))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let trace = try SyscallTrace(contentsOf: output)
        let syncs = trace.calls(["fsync", "fdatasync"]) { _ in true }

        let made = trace.calls(["mkdir", "mkdirat"]) { _ in true }.filter(\.succeeded).map { call in
            (call, ((call.path!.hasPrefix("/") ? call.path! : directory + "/" + call.path!) as NSString).standardizingPath)
        }
        #expect(Set(made.map(\.1)).isSuperset(of: ["\(directory)/new", "\(directory)/new/deeper", "\(directory)/new/deeper/state",
                                                 "\(directory)/new/stores", lake]), "\(made.map(\.1).sorted())")
        for (call, path) in made {
            let parent = (path as NSString).deletingLastPathComponent
            #expect(syncs.contains { $0.path == parent && $0.started > call.returned! },
                    "\(path) was made, its parent \(parent) never synced after")
        }

        // In the order the calls started (one thread writes the folder): whenever the index syncs,
        // every line written is synced, and the folder's entry of every file made.
        var unsynced: Set<String> = [], unsyncedEntries: Set<String> = [], commits = 0, dataSyncs = 0, filesMade = 0
        for call in trace.calls.sorted(by: { $0.started < $1.started }) {
            guard let path = call.path, path == lake || path.hasPrefix(lake + "/") else { continue }
            let isSync = ["fsync", "fdatasync"].contains(call.name)
            if path == lake {
                if isSync { unsyncedEntries.removeAll() }
            } else if path.hasPrefix(lake + "/.healthrouter-index.sqlite") {
                guard isSync else { continue }
                commits += 1
                #expect(unsynced.isEmpty, "\(unsynced.sorted()) not synced when the index synced (trace line \(call.started + 1))")
                #expect(unsyncedEntries.isEmpty, "the folder's entries of \(unsyncedEntries.sorted()) not synced when the index synced")
            } else if path.hasSuffix(".ndjson") {
                if call.name == "openat", call.arguments.contains("O_EXCL"), call.succeeded {
                    unsyncedEntries.insert(path)
                    filesMade += 1
                }
                if ["write", "writev", "pwrite64"].contains(call.name) { unsynced.insert(path) }
                if isSync {
                    dataSyncs += 1
                    unsynced.remove(path)
                }
            }
        }
        #expect(commits > 0 && dataSyncs > 0 && filesMade > 0, "commits \(commits), data syncs \(dataSyncs), files made \(filesMade)")
    }
}
