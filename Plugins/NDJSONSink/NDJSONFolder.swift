import Foundation
import HealthRouterCore

/// The sink's folder, as `prepare` takes it: health data, written only where no other user may
/// replace or link its files.
enum NDJSONFolder {
    /// Creates `path` when missing, each folder it creates 0700 whatever the umask (as the state
    /// directory is made); an existing folder keeps its mode. Then refuses the folder (a symbolic
    /// link to one is followed: the config's choice) when every user may write it (`o+w`: they
    /// could replace the sink's files), when this process may write it at all (else the lock
    /// file's creation says it may not). Another user's folder that this one may write (a group's,
    /// an admin's shared with the service) is taken: the sink writes only regular files of its own
    /// user, never through a link (`NDJSONRegularFile`).
    /// - Throws: `SinkError.misconfigured` naming the folder and the fix (`chmod o-w`);
    ///   a creation failure as `StorePath.creationFailure` says.
    static func prepare(_ path: String) throws {
        do {
            try StorePath.createPrivateFolder(path)
        } catch {
            throw StorePath.creationFailure(path, key: "directory", error: error)
        }
        // One this process may not write is refused when its lock file is made, saying so.
        guard access(path, W_OK) == 0 else { return }
        if let mode = StorePath.modeIfEveryoneWrites(path) {
            throw SinkError.misconfigured("\(path) is writable by every user (mode \(String(mode, radix: 8))): "
                                            + "another user could replace the sink's files or link them elsewhere; "
                                            + "chmod o-w \(path) (on a mount whose modes come from its options, "
                                            + "such as vfat, CIFS or NFS: set them there, e.g. dir_mode=0770)")
        }
    }
}
