import Foundation

/// The position a resumable one-sink run (`backfill`, `migrate`) reached, in a small file
/// under the state directory (`<state>/runs/<name>.cursor`). Saved after each batch the sink
/// acknowledged, atomically (write, fsync, rename), so that after a kill -9 the run resumes
/// at most one batch back; the batch is then written again, which sinks take idempotently.
public struct ResumeCursor: Sendable {
    public let path: String

    /// The cursor of the run called `name` (`migrate-local-to-lake`, `backfill-lake`).
    public init(stateDirectory: String, name: String) {
        let safe = String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        path = (stateDirectory as NSString).appendingPathComponent("runs/\(safe).cursor")
    }

    /// The stored position, the run's description and the digest of what came before the
    /// position (nil: none was stored), or nil when no run is under way.
    public func load() throws -> (position: Int64, run: String, digest: Int64?)? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.first, let position = Int64(first) else {
            throw ResumeCursorDamaged(path: path)
        }
        return (position, lines.count > 1 ? String(lines[1]) : "", lines.count > 2 ? Int64(lines[2]) : nil)
    }

    /// Stores `position` with `run`, a description of the run (its options), and `digest`, what
    /// the caller needs to tell that the input before `position` is still what it was, durably.
    public func save(_ position: Int64, run: String, digest: Int64? = nil) throws {
        let directory = (path as NSString).deletingLastPathComponent
        // Of the state directory's owner alone (0700), whatever the umask, as the state directory is.
        try StorePath.createPrivateFolder(directory)
        let temporary = path + ".tmp"
        let bytes = Array("\(position)\n\(run)\n\(digest.map(String.init) ?? "")\n".utf8)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ResumeCursorDamaged(path: temporary) }
        let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else { throw ResumeCursorDamaged(path: path) }
    }

    /// Forgets the run (it finished).
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A resume cursor that cannot be read or written.
public struct ResumeCursorDamaged: Error, CustomStringConvertible {
    public var path: String
    public var description: String { "\(path) cannot be read or written; delete it to start the run over" }
}
