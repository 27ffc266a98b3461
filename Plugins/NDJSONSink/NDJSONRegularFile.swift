import Foundation
import HealthRouterCore

/// Opens the files the ndjson sink writes in its folder (its `.ndjson` files, the lock file) without
/// following a symbolic link, and only when what is there is a regular file the running user owns:
/// another user who may write in the folder cannot make the sink append to, or truncate, a file
/// elsewhere. The folder itself may be a symbolic link (the user's choice, in the config).
enum NDJSONRegularFile {
    /// Opens `path` with `flags`, adding `O_NOFOLLOW` and `O_CLOEXEC`. With `mode`, a missing file is
    /// created with it (`O_CREAT | O_EXCL`), and `created` says whether it was.
    /// - Throws: `SinkError.misconfigured` naming the file when it is a symbolic link, not a regular
    ///   file or another user's; `NDJSONFileError` (with `errno`) when `open` fails otherwise.
    static func open(_ path: String, _ flags: Int32, creatingWith mode: mode_t? = nil) throws -> (descriptor: Int32, created: Bool) {
        // O_NONBLOCK: a FIFO put there would block `open` until a reader came; it is refused below.
        let common = flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK
        var fd: Int32 = -1
        var created = false
        if let mode {
            fd = Foundation.open(path, common | O_CREAT | O_EXCL, mode)
            if fd < 0, errno != EEXIST { throw failure(path, errno) }
            created = fd >= 0
        }
        if fd < 0 {
            fd = Foundation.open(path, common)
            if fd < 0 { throw failure(path, errno) }
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            _ = Foundation.close(fd)
            throw NDJSONFileError(path: path, operation: "fstat", code: code)
        }
        if let problem = problem(path, info) {
            _ = Foundation.close(fd)
            throw SinkError.misconfigured(problem)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return (fd, created)
    }

    /// The size of the file at `path`, which must be a regular file the running user owns (not
    /// followed when a symbolic link: refused). Throws as `open`.
    static func size(_ path: String) throws -> Int64 {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw NDJSONFileError(path: path, operation: "stat", code: errno) }
        if let problem = problem(path, info) { throw SinkError.misconfigured(problem) }
        return Int64(info.st_size)
    }

    /// Throws, as `open`, when `path` is there and is not a regular file of the running user's
    /// (what SQLite would follow or write through); nothing when it is missing.
    static func refuseUnlessRegular(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if let problem = problem(path, info) { throw SinkError.misconfigured(problem) }
    }

    private static let rule = "the ndjson sink writes only regular files it owns"

    private static func problem(_ path: String, _ info: stat) -> String? {
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            guard info.st_uid == geteuid() else {
                return "\(path) is owned by uid \(info.st_uid), not by the user running healthrouter (uid \(geteuid())): "
                    + "\(rule); chown it to that user, or remove it"
            }
            return nil
        case S_IFLNK: return "\(path) is a symbolic link: \(rule); remove it"
        case S_IFDIR: return "\(path) is a folder: \(rule); remove it"
        default: return "\(path) is not a regular file (a FIFO, a socket or a device): \(rule); remove it"
        }
    }

    /// `open`'s failure: in the sink's terms when a symbolic link (`ELOOP`, from `O_NOFOLLOW`) or
    /// something other than a regular file (`ENXIO`: a FIFO without a reader, a socket) is there.
    private static func failure(_ path: String, _ code: Int32) -> any Error {
        var info = stat()
        if code == ELOOP || code == ENXIO || code == EISDIR, lstat(path, &info) == 0, let problem = problem(path, info) {
            return SinkError.misconfigured(problem)
        }
        return NDJSONFileError(path: path, operation: "open", code: code)
    }
}
