import Foundation
import Testing
import HealthRouterCore
@testable import AppleHealthExportSource

/// The libarchive reader's own failures.
@Suite struct ZipArchiveTests {
    /// A zip that cannot be opened (deleted or moved between the first look at it and a later
    /// pass over it: the reader opens the file several times) is a `SourceError` naming it; the
    /// reader libarchive allocated is freed once. Freed by the failing `init` and again by
    /// `deinit` (Swift runs it for an object whose `init` throws after setting every property),
    /// libarchive aborted the process ("invalid archive handle", or glibc's double free).
    @Test func aZipThatCannotBeOpenedIsAnErrorNotACrash() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("gone.zip")
        for _ in 0..<3 {
            #expect {
                _ = try ZipArchive(path: path)
            } throws: { error in
                guard let error = error as? SourceError else { return false }
                return error.input == path && error.problem.contains("cannot open the zip file")
            }
        }
    }
}
