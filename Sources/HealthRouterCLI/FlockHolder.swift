import Foundation
import Glibc

/// A process that holds a `flock` on a file or folder, as Linux's `/proc/locks` lists it (by the
/// file's device and inode): what the state directory's lock is held by when `daemon.lock` is not
/// (a backup script's `flock /var/lib/healthrouter tar …`, a daemon whose `daemon.lock` was deleted).
struct FlockHolder {
    /// Its pid, as this process's pid namespace sees it.
    var pid: Int32
    /// Its command line (`/proc/<pid>/cmdline`, arguments joined by spaces, cut at 100 characters),
    /// or its name (`/proc/<pid>/comm`); nil when neither can be read (another user's, gone).
    var command: String?
    /// Whether it is a healthrouter (its name is this program's); nil when its name cannot be read
    /// (another user's process under `/proc`'s `hidepid`, or gone).
    var isHealthRouter: Bool?

    /// The holders of a `flock` on `path`; empty when none is found: no `/proc/locks` (not Linux),
    /// or the holder is in another pid namespace (a container's: listed with pid 0) or gone.
    static func holders(of path: String) -> [FlockHolder] {
        var status = stat()
        guard stat(path, &status) == 0, let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return [] }
        // /proc/locks writes the device as major:minor in hex, the inode in decimal.
        let device = UInt64(status.st_dev)
        let major: UInt64 = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor: UInt64 = (device & 0xff) | ((device >> 12) & ~0xff)
        let wanted = String(format: "%02llx:%02llx:%llu", major, minor, UInt64(status.st_ino))
        var pids: [Int32] = []
        for line in locks.split(separator: "\n") {
            // "5: FLOCK  ADVISORY  WRITE 16796 fe:00:16252938 0 EOF"; a waiter's line has "->" after the number.
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK", fields[5] == wanted,
                  let pid = Int32(fields[4]), pid > 0, !pids.contains(pid) else { continue }
            pids.append(pid)
        }
        let ownName = ProcessInfo.processInfo.processName
        return pids.map { pid in
            let name = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            var command = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")))
                .map { String(decoding: $0, as: UTF8.self).split(separator: "\0").joined(separator: " ") }
                .flatMap { $0.isEmpty ? nil : $0 } ?? name
            if let whole = command, whole.count > 100 { command = whole.prefix(99) + "…" }
            return FlockHolder(pid: pid, command: command.map { $0.controlCharactersAsQuestionMarks() },
                               isHealthRouter: name.map { $0 == "healthrouter" || $0 == String(ownName.prefix(15)) })
        }
    }

    /// `pid 123: flock -s /var/lib/healthrouter tar …`.
    var description: String { "pid \(pid)" + (command.map { ": \($0)" } ?? "") }
}
