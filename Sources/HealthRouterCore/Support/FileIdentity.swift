import Glibc

/// A file as the kernel knows it (device and inode), to tell whether a path still names the file
/// a process opened: a store or journal deleted or replaced under a running daemon would take
/// every later write into a file nobody can open again.
public struct FileIdentity: Sendable, Equatable {
    private let device: UInt64
    private let inode: UInt64

    /// The file at `path` now (following symbolic links); nil when there is none.
    public init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }

    /// Whether `path` names this file still: false when it names another one, or nothing (it
    /// or a folder on its way was deleted); true when that cannot be told (an I/O error).
    public func isStill(at path: String) -> Bool {
        if let now = FileIdentity(path: path) { return now == self }
        return errno != ENOENT && errno != ENOTDIR
    }
}
