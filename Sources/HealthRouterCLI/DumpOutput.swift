import Foundation
import HealthRouterCore

/// Standard output; a pipe, device or socket that `--output` names (a FIFO, `/dev/stdout`),
/// written in place; else a file written beside its final name and renamed into place on close
/// (a symbolic link is followed: the file it points at is replaced, not the link), with the
/// permissions of the file it replaces (a new one's follow the umask). A folder is
/// refused (exit 64), and nothing but a regular file is ever replaced: the rename is rename(2),
/// which cannot put a file in place of a folder.
final class DumpOutput {
    private let handle: FileHandle
    private let path: String?
    private let temporary: String?
    /// What the user named (`--output`), or standard output: for errors.
    private let name: String
    /// Whether `close()` put the file in place (else the temporary file is removed at deinit: a
    /// dump that failed half-way leaves nothing beside its name).
    private var placed = false

    init(path given: String?) throws {
        name = given ?? "standard output"
        guard let given else {
            handle = FileHandle.standardOutput
            path = nil
            temporary = nil
            return
        }
        try Self.refuseFolder(given)
        var status = stat()
        if stat(given, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            guard let handle = FileHandle(forWritingAtPath: given) else {
                throw CommandFailure(message: "cannot write to \(given)", hint: "check that it is writable", code: .cannotCreate)
            }
            self.handle = handle
            self.path = nil
            self.temporary = nil
            return
        }
        let path = URL(fileURLWithPath: given).resolvingSymlinksInPath().path
        self.path = path
        // Of this process alone: two dumps to one file at once each write their own, and the one that
        // ends last is the file (with one name, each wrote into and renamed the other's).
        let temporary = path + ".partial-\(getpid())"
        // The file a dump replaces keeps its permissions (a dump of health data made private with
        // chmod 600 stays so, from its first byte on); a new one follows the umask. A leftover of a
        // dead process of this pid goes first, a link included (never followed).
        var replaced = stat()
        let mode = stat(path, &replaced) == 0 ? replaced.st_mode & 0o777 : nil
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode ?? 0o666)
        guard descriptor >= 0 else {
            throw CommandFailure(message: "cannot create \(given): \(String(cString: strerror(errno)))",
                                 hint: "check that its folder exists and is writable", code: .cannotCreate)
        }
        if let mode { fchmod(descriptor, mode) }
        self.handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        self.temporary = temporary
    }

    deinit {
        if let temporary, !placed { unlink(temporary) }
    }

    /// Throws a usage error (64) when `path` is a folder, or a link to one (`--output .`): a dump is
    /// one file, and replacing a folder with it would delete everything in the folder.
    static func refuseFolder(_ path: String?) throws {
        var status = stat()
        guard let path, stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return }
        let example = (path as NSString).appendingPathComponent("dump.ndjson")
        throw CommandFailure(message: "--output \(path) is a folder", hint: "name a file, e.g. \(example)", code: .usage)
    }

    func write(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        try failingClearly { try handle.write(contentsOf: Data(bytes)) }
    }

    func close() throws {
        guard let path, let temporary else {
            if handle !== FileHandle.standardOutput { try failingClearly { try handle.close() } }
            return
        }
        try failingClearly {
            try handle.synchronize()
            try handle.close()
        }
        // rename(2) replaces a file atomically and fails on a folder (one put there since `init`).
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CommandFailure(message: "cannot put the dump in place at \(path): \(reason)",
                                 hint: "name a file whose folder is writable", code: .cannotCreate)
        }
        placed = true
    }

    /// `body`, with a failure (a full disk, a closed device) told as the dump's: what it was
    /// written to and why (exit 73), and the partial file removed.
    private func failingClearly(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            if let temporary { unlink(temporary) }
            let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
            let code = underlying.flatMap { $0.domain == NSPOSIXErrorDomain ? Int32($0.code) : nil }
            let reason = code.map { String(cString: strerror($0)) } ?? (error as NSError).localizedDescription
            throw CommandFailure(message: "cannot write the dump to \(name): \(reason)",
                                 hint: StandardOutput.hint(errno: code, elsewhere: "name another file with --output"),
                                 code: .cannotCreate)
        }
    }
}
