import Foundation

/// A relay (Python, one thread a direction a connection) listening on `address`, a random port,
/// that passes every connection on to `127.0.0.1:targetPort` unchanged (TLS included): a loopback
/// server reached as if over the network, at one of this machine's other addresses.
/// The process is SIGKILLed when the value goes away.
public final class TCPRelay {
    public let address: String
    public let port: Int
    private let process: PortPrintingScript

    public init(address: String, targetPort: Int) throws {
        self.address = address
        process = try PortPrintingScript(Self.script, arguments: [address, String(targetPort)])
        port = process.port
    }

    deinit { process.stop() }

    /// An IPv4 address of this machine's that is not loopback (of an interface that is up), or nil
    /// when it has none (a container with only `lo`).
    public static func nonLoopbackIPv4Address() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == UInt16(AF_INET),
                  flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0 else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            var ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard inet_ntop(AF_INET, &ipv4, &text, socklen_t(text.count)) != nil else { continue }
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return nil
    }

    private static let script = #"""
        import socket, sys, threading
        address, target = sys.argv[1], int(sys.argv[2])
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((address, 0))
        listener.listen(16)
        print(listener.getsockname()[1], flush=True)
        def pump(source, destination):
            try:
                while True:
                    data = source.recv(65536)
                    if not data:
                        break
                    destination.sendall(data)
            except OSError:
                pass
            for s in (source, destination):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        while True:
            client, _ = listener.accept()
            try:
                server = socket.create_connection(('127.0.0.1', target))
            except OSError:
                client.close()
                continue
            for pair in ((client, server), (server, client)):
                threading.Thread(target=pump, args=pair, daemon=True).start()
        """#
}
