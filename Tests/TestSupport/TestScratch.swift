import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where tests put their files: one folder a test process, under the system's temporary folder
/// (`TMPDIR`), removed with everything in it when the process exits. A plain `swift test` so leaves
/// nothing behind (it left about 0.7 GB a run), except what a crashed run was holding.
public enum TestScratch {
    /// The folder, with a trailing slash as `NSTemporaryDirectory()` gives it. Created at first use,
    /// readable and searchable by every user (the tests that run the binary as another user, or
    /// initdb as `postgres`, need to reach inside).
    public static let path: String = {
        let root = NSTemporaryDirectory() + "healthrouter-tests-\(getpid())"
        // A crashed run's, with the same pid.
        try? FileManager.default.removeItem(atPath: root)
        try! FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        chmod(root, 0o755)
        atexit { TestScratch.removeAll() }
        return root + "/"
    }()

    /// Removes the folder; called at exit.
    static func removeAll() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
