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
            if held { throw heldByAnother(pid: Self.recordedPid(in: path)) }
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

    /// Writes this process's pid into the lock file open as `descriptor`, in place of what it held.
    static func recordPid(in descriptor: Int32) {
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, pid, pid.count, 0)
    }

    deinit {
        close(descriptor)
        if directoryDescriptor >= 0 { close(directoryDescriptor) }
    }

    /// The pid `path` records ("" when it is gone or records none).
    private static func recordedPid(in path: String) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        return pid(in: descriptor)
    }

    /// The pid of the `healthrouter run` that holds `stateDirectory`'s lock, when one does (`"?"`
    /// when its file names none); nil when none runs there.
    static func holder(of stateDirectory: String) -> String? {
        let path = (stateDirectory as NSString).appendingPathComponent("daemon.lock")
        let directory = open(stateDirectory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            defer { close(directory) }
            if flock(directory, LOCK_SH | LOCK_NB) == 0 {
                flock(directory, LOCK_UN)
            } else if errno == EWOULDBLOCK {
                let pid = recordedPid(in: path)
                return pid.isEmpty ? "?" : pid
            }
        }
        return holder(ofLockFile: path)
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

    /// The pid the lock file open as `descriptor` records ("" when none).
    static func pid(in descriptor: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
    }
}
