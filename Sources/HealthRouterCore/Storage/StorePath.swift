import Foundation

/// What is wrong with a store's configured path when something of the wrong kind is there:
/// said in the config's terms (which key to change), before the storage library reports it in
/// its own (`SQLite code 14`, `NSCocoaErrorDomain Code=516`), which reads like a passing failure.
public enum StorePath {
    /// Why `path` cannot be a store's file (a folder is there); nil when it can.
    public static func fileProblem(_ path: String, key: String) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
        return "\(path) is a folder, not a file: set `\(key)` to a file in it, such as \(path)/health.sqlite"
    }

    /// Why `path` cannot be a store's folder, or hold the store's file `target` (a file, or a file
    /// on the way, is there); nil when it can.
    public static func folderProblem(_ path: String, key: String, for target: String? = nil) -> String? {
        var prefix = ""
        for component in (path as NSString).pathComponents {
            prefix = prefix.isEmpty ? component : (prefix as NSString).appendingPathComponent(component)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: prefix, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            if let target { return "\(prefix) is a file, so \(target) cannot be made: set `\(key)` elsewhere" }
            return prefix == path ? "\(path) is a file, not a folder: set `\(key)` to a folder (it is created when missing)"
                : "\(prefix) is a file, so \(path) cannot be a folder: set `\(key)` to another folder"
        }
        return nil
    }

    /// Why another user could have the store's file `path` be a file they choose (as root: any):
    /// its folder may be written by every user and is not sticky (`o+w` without `+t`: they could
    /// replace the file, or put a link in its place), or it is a symbolic link another user than
    /// this one or root made; nil when neither holds. A link of this user's is the config's choice;
    /// in a sticky folder (/tmp) another user cannot replace this user's file, and a link they
    /// put first is theirs. Another user's file itself is taken (the config put the store where
    /// it is: a store root copied in, a service's store read by its admin). Said in the config's
    /// terms (`key`).
    public static func othersControlProblem(_ path: String, key: String) -> String? {
        let folder = (path as NSString).deletingLastPathComponent
        if let mode = modeIfEveryoneWrites(folder.isEmpty ? "." : folder, countingSticky: false) {
            return "\(folder.isEmpty ? "." : folder), the folder of \(path), may be written by every user (mode "
                + "\(String(mode, radix: 8))): another user could replace the store or link it elsewhere; "
                + "chmod o-w it (or +t, as /tmp is), or set `\(key)` to a folder of your own"
        }
        if let owner = foreignLinkOwner(path) {
            return "\(path) is a symbolic link another user (uid \(owner)) made: the store would be the file they "
                + "point it at; remove it, or set `\(key)` to a store of your own"
        }
        return nil
    }

    /// The mode (permission bits) of the folder `path` when every user may write it (`o+w`; a
    /// sticky one, as /tmp, only when `countingSticky`), else nil (also when it cannot be read).
    public static func modeIfEveryoneWrites(_ path: String, countingSticky: Bool = true) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IWOTH != 0, countingSticky || info.st_mode & S_ISVTX == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// The owner of the symbolic link `path` when another user than this process's or root made
    /// it (whoever may point it elsewhere), else nil (not a link, or none there).
    public static func foreignLinkOwner(_ path: String) -> uid_t? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK, info.st_uid != geteuid(), info.st_uid != 0 else { return nil }
        return info.st_uid
    }

    /// Creates the folder `path` and the folders missing on the way, each its owner's alone (0700,
    /// whatever the umask): health data. A folder that exists keeps its mode (a group the owner
    /// let in keeps its access). Throws what `FileManager.createDirectory` throws.
    public static func createPrivateFolder(_ path: String) throws {
        var missing: [String] = []
        var folder = (path as NSString).standardizingPath
        while !folder.isEmpty, folder != "/", !FileManager.default.fileExists(atPath: folder) {
            missing.append(folder)
            folder = (folder as NSString).deletingLastPathComponent
        }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for folder in missing { chmod(folder, 0o700) }
        // Each new folder's entry reaches the disk with its parent (a power cut could otherwise
        // lose the folder, and the stores made in it, after their first writes were acknowledged).
        for folder in missing.reversed() { syncFolder((folder as NSString).deletingLastPathComponent) }
    }

    /// fsyncs the folder `path` (its entries: a file or folder made or renamed in it). Best effort.
    public static func syncFolder(_ path: String) {
        let fd = open(path.isEmpty ? "." : path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// The folder `path` could not be created (`error`, from `FileManager.createDirectory`): a
    /// `misconfigured` error saying which key to change when the user or the place refuses it
    /// (no permission, a read-only or virtual file system such as /proc), else `unavailable`
    /// (a full disk, an I/O error: worth retrying). Instead of Foundation's
    /// "NSCocoaErrorDomain Code=4", which reads like a passing failure.
    public static func creationFailure(_ path: String, key: String, error: any Error) -> SinkError {
        let nsError = error as NSError
        let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError
        var errno: Int32? = underlying?.domain == NSPOSIXErrorDomain ? Int32(underlying!.code) : nil
        if errno == nil, nsError.domain == NSCocoaErrorDomain {
            // Foundation on Linux often gives only its own code.
            switch CocoaError.Code(rawValue: nsError.code) {
            case .fileNoSuchFile, .fileReadNoSuchFile: errno = ENOENT
            case .fileWriteNoPermission, .fileReadNoPermission: errno = EACCES
            case .fileWriteVolumeReadOnly: errno = EROFS
            default: break
            }
        }
        let reason = errno.map { String(cString: strerror($0)) } ?? nsError.localizedDescription
        guard let errno, [EACCES, EPERM, EROFS, ENOENT, ENOTDIR].contains(errno) else {
            return .unavailable("cannot create the folder \(path): \(reason)")
        }
        if errno == EROFS { return .misconfigured("cannot create the folder \(path): \(reason): " + readOnlyMountAdvice(key: key)) }
        return .misconfigured("cannot create the folder \(path): \(reason): set `\(key)` to a place the user running "
                                + "healthrouter may write, or create the folder and give that user its ownership")
    }

    /// What to do about a store on a read-only file system, whose permissions would not help.
    public static func readOnlyMountAdvice(key: String) -> String {
        "mount it read-write (in a container: a volume without :ro), or set `\(key)` to a place on a writable one"
    }
}
