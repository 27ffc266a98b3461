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
}
