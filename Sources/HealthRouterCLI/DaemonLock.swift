import Foundation
import Glibc

/// The state directory's lock of a running `healthrouter run`: two daemons on one journal would
/// each deliver every entry to every sink (twice the writes, cursors racing). Held (an exclusive
/// `flock` on the state directory itself, and on `<state_directory>/daemon.lock`, which records
/// the holder's pid) until the process ends or the lock is released; the kernel drops it when
/// the process dies, `kill -9` included. The directory's lock holds when `daemon.lock` is deleted
/// as a "stale lock file" (a second daemon locked a new file); where directories cannot be
/// locked, the file's lock alone holds.
final class DaemonLock {
    /// The state directory, standardized: what tells two configs' directories apart.
    let key: String
    private let descriptor: Int32
    /// The state directory, locked (-1: it could not be).
    private let directoryDescriptor: Int32

    static func key(_ stateDirectory: String) -> String {
        URL(fileURLWithPath: stateDirectory).resolvingSymlinksInPath().standardizedFileURL.path
    }

    /// Takes the lock of `stateDirectory` (which exists), or says which process holds it.
    init(stateDirectory: String) throws {
        key = Self.key(stateDirectory)
        let path = (stateDirectory as NSString).appendingPathComponent("daemon.lock")
        func heldByAnother(pid: String) -> CommandFailure {
            CommandFailure(
                message: "another healthrouter run\(pid.isEmpty ? "" : " (pid \(pid))") uses the state directory \(stateDirectory)",
                hint: "stop it first, or give this daemon a state_directory (and stores) of its own: two daemons on one journal "
                    + "would each deliver everything to every sink",
                code: .unavailable)
        }
        var directoryDescriptor = open(stateDirectory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0, flock(directoryDescriptor, LOCK_EX | LOCK_NB) != 0 {
            let held = errno == EWOULDBLOCK
            close(directoryDescriptor)
            directoryDescriptor = -1
            if held { throw Self.directoryHeld(stateDirectory, otherwise: heldByAnother) }
        }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            if directoryDescriptor >= 0 { close(directoryDescriptor) }
            throw CommandFailure(message: "cannot open \(path): \(String(cString: strerror(errno)))",
                                 hint: "the daemon locks its state directory: make it writable", code: .cannotCreate)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let pid = Self.pid(in: descriptor)
            close(descriptor)
            if directoryDescriptor >= 0 { close(directoryDescriptor) }
            throw heldByAnother(pid: pid)
        }
        self.descriptor = descriptor
        self.directoryDescriptor = directoryDescriptor
        Self.recordPid(in: descriptor)
    }

    /// Writes this process's pid into the lock file open as `descriptor`, in place of what it held,
    /// and then `lines`, a line each.
    static func recordPid(in descriptor: Int32, then lines: [String] = []) {
        let record = Array(([String(getpid())] + lines).map { $0 + "\n" }.joined().utf8)
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, record, record.count, 0)
    }

    deinit {
        close(descriptor)
        if directoryDescriptor >= 0 { close(directoryDescriptor) }
    }

    /// Why `stateDirectory`, whose own lock another process holds, cannot be taken: the
    /// `healthrouter run` holding `daemon.lock` or, with that file free (deleted as a "stale lock
    /// file", or naming a daemon long gone), the folder's holder as `/proc/locks` names it — a
    /// healthrouter is `otherwise`'s (a daemon), another program (a backup script's `flock`) is said
    /// as such, and one not found (another pid namespace's) or whose name cannot be read as either.
    private static func directoryHeld(_ stateDirectory: String, otherwise: (_ pid: String) -> CommandFailure) -> CommandFailure {
        if let pid = holder(ofLockFile: (stateDirectory as NSString).appendingPathComponent("daemon.lock")) {
            return otherwise(pid == "?" ? "" : pid)
        }
        let holders = FlockHolder.holders(of: stateDirectory)
        if let daemon = holders.first(where: { $0.isHealthRouter == true }) { return otherwise("\(daemon.pid)") }
        let named = holders.map(\.description).joined(separator: ", ")
        let what = named.isEmpty ? ", and no healthrouter run holds its daemon.lock"
            : holders.contains { $0.isHealthRouter == nil } ? ": a healthrouter run or another program (its name cannot be read here)"
            : ": not a healthrouter run"
        return CommandFailure(
            message: "another process\(named.isEmpty ? "" : " (\(named))") holds a lock (flock) on the state directory "
                + "\(stateDirectory)\(what)",
            hint: "healthrouter locks the folder itself so that one daemon at a time uses it; a backup script's "
                + "`flock \(stateDirectory) …` holds it until the backup ends: start again then (systemd's Restart= does)"
                + (named.isEmpty ? "; `lslocks` (as root) names the holder, unless it runs in another pid namespace (a container)" : ""),
            code: .unavailable)
    }

    /// The pid of the `healthrouter run` that holds `stateDirectory`'s lock, when one does (`"?"`
    /// when its file names none, or it is not found but may be one); nil when none runs there. The
    /// folder's lock held by another program (a backup script's `flock`) is no daemon; by a process
    /// whose name cannot be read, one.
    static func holder(of stateDirectory: String) -> String? {
        lockHolder(of: stateDirectory)?.pid
    }

    /// As `holder(of:)`, and whether the holder is known to be a healthrouter run (it holds
    /// `daemon.lock`, or `/proc/locks` names a healthrouter) or only may be one (not found, or its
    /// name cannot be read).
    static func lockHolder(of stateDirectory: String) -> (pid: String, confirmed: Bool)? {
        if let pid = holder(ofLockFile: (stateDirectory as NSString).appendingPathComponent("daemon.lock")) { return (pid, true) }
        let directory = open(stateDirectory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return nil }
        defer { close(directory) }
        if flock(directory, LOCK_SH | LOCK_NB) == 0 {
            flock(directory, LOCK_UN)
            return nil
        }
        guard errno == EWOULDBLOCK else { return nil }
        // A daemon whose daemon.lock was deleted, or another program; one whose name cannot be read
        // may be a daemon, as one not found.
        let holders = FlockHolder.holders(of: stateDirectory)
        if let daemon = holders.first(where: { $0.isHealthRouter != false }) { return ("\(daemon.pid)", daemon.isHealthRouter == true) }
        return holders.isEmpty ? ("?", false) : nil
    }

    /// The pid recorded in the lock file `path` while a process holds it (`"?"` when the file names
    /// none); nil when the file is missing or nobody holds it. For `daemon.lock` and `import.lock`.
    static func holder(ofLockFile path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return nil
        }
        let pid = pid(in: descriptor)
        return pid.isEmpty ? "?" : pid
    }

    /// The pid the lock file open as `descriptor` records on its first line ("" when none).
    static func pid(in descriptor: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return "" }
        let line = buffer[..<count].prefix { $0 != 0x0A }
        return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }
}
