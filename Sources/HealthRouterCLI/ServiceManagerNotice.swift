import Foundation

/// systemd's readiness protocol (sd_notify): `READY=1` in a datagram to the Unix socket that
/// `NOTIFY_SOCKET` names (a path, or `@name` in the abstract namespace) for a `Type=notify` unit.
/// `systemctl start` then returns once the daemon runs, and a `systemctl reload` or `stop` is not
/// sent before: a signal that came while the process was still loading its libraries, before its
/// first statement, met the signal's default action; SIGHUP ended the daemon, and systemd, which
/// counts a SIGHUP a clean exit, did not restart it.
enum ServiceManagerNotice {
    /// Sends `state` (`READY=1`) when `environment` has `NOTIFY_SOCKET`; returns whether it was sent.
    /// Sending fails silently otherwise: a daemon started by hand has no one to tell.
    @discardableResult
    static func send(_ state: String, environment: [String: String]) -> Bool {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        // `@name`: the abstract namespace, whose names start with a zero byte.
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { pathBytes in
            for (index, byte) in bytes.enumerated() { pathBytes[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        let handle = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard handle >= 0 else { return false }
        defer { close(handle) }
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                sendto(handle, message, message.count, Int32(MSG_NOSIGNAL), socketAddress, length)
            }
        }
        return sent == message.count
    }
}
