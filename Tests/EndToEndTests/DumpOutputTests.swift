import Foundation
import TestSupport
import Testing
@testable import HealthRouterCLI

/// A dump that stops before its end (an error after the output was opened) leaves nothing beside
/// its name: its temporary file (one of each process's own) is removed.
@Suite struct DumpOutputTests {
    @Test func anUnfinishedDumpLeavesNoTemporaryFile() throws {
        let directory = TestScratch.path + "dump-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            let output = try DumpOutput(path: directory + "/all.ndjson")
            try output.write(Array("{}\n".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).count == 1)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        let finished = try DumpOutput(path: directory + "/all.ndjson")
        try finished.write(Array("{}\n".utf8))
        try finished.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["all.ndjson"])
    }

    /// A dump made private (chmod 600) and dumped again stays private, also while it is written:
    /// the replacing file was created with the umask's mode (0644), readable by every local user.
    @Test func aReplacedDumpKeepsItsPermissions() throws {
        let directory = TestScratch.path + "dump-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/all.ndjson"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("old\n".utf8)))
        #expect(chmod(path, 0o600) == 0)
        let previous = umask(0o022)
        defer { umask(previous) }
        let output = try DumpOutput(path: path)
        try output.write(Array("{}\n".utf8))
        let partial = try #require(try FileManager.default.contentsOfDirectory(atPath: directory).first { $0 != "all.ndjson" })
        var status = stat()
        #expect(stat(directory + "/" + partial, &status) == 0 && status.st_mode & 0o777 == 0o600)
        try output.close()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{}\n")
        // A new file follows the umask.
        let fresh = try DumpOutput(path: directory + "/new.ndjson")
        try fresh.close()
        #expect(stat(directory + "/new.ndjson", &status) == 0 && status.st_mode & 0o777 == 0o644)
    }
}
