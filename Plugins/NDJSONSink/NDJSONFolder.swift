import Foundation
import HealthRouterCore

/// The sink's folder, as `prepare` takes it: health data, written only where no other user may
/// replace or link its files.
enum NDJSONFolder {
    /// Creates `path` when missing, each folder it creates 0700 whatever the umask (as the state
    /// directory is made); an existing folder keeps its mode. Then refuses the folder (a symbolic
    /// link to one is followed: the config's choice) when other users may write it (`o+w`) or
    /// another user than the running one owns it (when this process may write it at all: else the
    /// lock file's creation says it may not).
    /// - Throws: `SinkError.misconfigured` naming the folder and the fix (`chmod o-w`, `chown`);
    ///   a creation failure as `StorePath.creationFailure` says.
    static func prepare(_ path: String) throws {
        do {
            try StorePath.createPrivateFolder(path)
        } catch {
            throw StorePath.creationFailure(path, key: "directory", error: error)
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw SinkError.unavailable("\(path): stat failed: \(String(cString: strerror(errno)))")
        }
        // One this process may not write is refused when its lock file is made, saying so.
        guard access(path, W_OK) == 0 else { return }
        let user = geteuid()
        if info.st_uid != user {
            throw SinkError.misconfigured("\(path) is owned by uid \(info.st_uid), not by the user running healthrouter "
                                            + "(uid \(user)): the ndjson sink writes health data only in a folder of its "
                                            + "own user's; chown \(user) \(path), or set `directory` to a folder that user owns")
        }
        if info.st_mode & S_IWOTH != 0 {
            throw SinkError.misconfigured("\(path) is writable by every user (mode \(String(info.st_mode & 0o7777, radix: 8))): "
                                            + "another user could replace the sink's files or link them elsewhere; "
                                            + "chmod o-w \(path)")
        }
    }
}
