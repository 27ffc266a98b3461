import Foundation

/// A TCP socket listening on a free loopback port that nothing accepts on: the kernel still
/// completes connections (up to its backlog), and no server ever speaks (a host that does not
/// answer, a port taken).
public enum SilentListener {
    /// The socket and its port; nil when none could be made. The caller closes it.
    public static func open() -> (descriptor: Int32, port: UInt16)? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard descriptor >= 0, listening else {
            if descriptor >= 0 { close(descriptor) }
            return nil
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }
}
