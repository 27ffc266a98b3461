import Foundation

/// Mounts of a test's own (a small tmpfs as a disk that fills up), in a mount namespace that
/// util-linux's `unshare -rm` makes for the process under test alone.
public enum MountNamespace {
    /// Whether this machine lets a process mount (a tmpfs, a bind mount) in a namespace of its own (a user
    /// namespace; root in a VM or CI, or unprivileged user namespaces allowed).
    public static let available: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-rm", "/bin/sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// Fills the file system of `path` (a folder, seen by the test through `/proc/<pid>/root` of a
    /// process in the namespace) with the file `path/filler` until it has no room left.
    public static func fill(_ path: String) {
        let descriptor = open(path + "/filler", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0x78, count: 4096)
        while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        // What is left is smaller than a block: a write of a byte at a time takes it too.
        while write(descriptor, "x", 1) > 0 {}
    }

    /// Frees what `fill(path)` took.
    public static func free(_ path: String) {
        unlink(path + "/filler")
    }
}
