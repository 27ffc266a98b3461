import CMHD
import Foundation
import HealthRouterCore
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd (a thread per connection). `examineHead` may answer
/// a request from its headers alone (auth, length) before the body is read; otherwise the
/// body is gathered (at most `bodyLimit` bytes) and `handle` answers it on the connection's
/// thread; `answered` sees every request with the reply it is given. The declared lengths of the bodies being received, all connections together,
/// are taken from `uploads` (which `handle` may take more of, for what it makes of a body):
/// a body that does not fit now is answered `uploadsBusy` (503) before any of it is read, one
/// that never fits `contentTooLong` (413); its share returns to the budget when its request
/// completes. A connection whose request line and headers
/// are not all in `headerDeadlineSeconds` after it opened, or after its previous request
/// completed, is shut down. `stop()` stops accepting, waits for the requests in flight
/// (not long for those whose body is still arriving), then closes.
final class MHDServer: Sendable {
    struct Limits: Sendable {
        var connections: UInt32 = 256
        /// At most this many of `connections` from one client address; those beyond are closed
        /// as soon as they are accepted (libmicrohttpd's per-IP limit).
        var connectionsPerAddress: UInt32 = 32
        /// A connection that sends nothing for this long is closed (libmicrohttpd's idle timeout).
        var timeoutSeconds: UInt32 = 60
        /// A request's line and headers must be complete within this long of the connection
        /// opening or of its previous request completing, however steadily they trickle in.
        var headerDeadlineSeconds: Double = 30
        var bodyLimit = 64 << 20
    }

    /// The header names handlers may read (lower-cased).
    static let headerNames = ["authorization", "content-length", "content-encoding", "content-type",
                              "api-key", "x-api-key", "transfer-encoding"]

    let examineHead: @Sendable (HTTPRequest) -> HTTPReply?
    let handle: @Sendable (HTTPRequest) -> HTTPReply
    /// Called with each request (its headers; its body when it was read) and the reply it gets,
    /// on the connection's thread, before the reply is sent.
    let answered: @Sendable (HTTPRequest, HTTPReply) -> Void
    let limits: Limits
    /// The memory the bodies being received may take, all connections together.
    let uploads: UploadBudget
    /// The `MHD_Daemon *` as an address (pointers are not Sendable); 0 when not running.
    private let daemon = Mutex<UInt>(0)
    private let inFlight = Mutex(0)
    /// Of `inFlight`, the requests whose body is in and that are being answered.
    private let answering = Mutex(0)
    private let served = Mutex(0)
    private let connections = Mutex(OpenConnections())
    /// Where the listening socket goes when the server stops, and where `start` finds one.
    private let handover: ListenerHandover?
    /// The configured address being served (set by `start`).
    private let listening = Mutex<(host: String, port: UInt16)?>(nil)

    /// The connections libmicrohttpd has open, by `MHD_Connection` address (from its
    /// notification that one started to the one that it closed).
    private struct OpenConnections {
        struct Connection {
            var socket: Int32
            /// While it waits for a request's headers: the number of the deadline armed for them.
            var headerDeadline: UInt64?
            /// Until its first request's headers are in: a client that has just connected, whose
            /// request may be in the socket already (or its TLS handshake under way).
            var awaitingFirstRequest = true
        }
        /// The connections whose first request's headers are not in yet.
        var awaitingFirstRequest: Int { byAddress.values.count(where: { $0.awaitingFirstRequest }) }
        var byAddress: [UInt: Connection] = [:]
        var deadlinesArmed: UInt64 = 0
    }

    /// libmicrohttpd's own messages (a client that closed mid-request, a TLS handshake that
    /// failed) go to its debug level, on libmicrohttpd's threads; running out of descriptors is a
    /// warning (`acceptFailedForWantOfResources`), at most one every 10 s.
    private let logger: Logger
    private let warnings: ThrottledWarnings
    /// The C side of the log handler, alive as long as the server.
    private nonisolated(unsafe) let logTarget = UnsafeMutablePointer<swmhd_log_target>.allocate(capacity: 1)

    init(limits: Limits, uploads: UploadBudget = UploadBudget(capacity: 256 << 20), handover: ListenerHandover? = nil,
         logger: Logger,
         examineHead: @escaping @Sendable (HTTPRequest) -> HTTPReply?, handle: @escaping @Sendable (HTTPRequest) -> HTTPReply,
         answered: @escaping @Sendable (HTTPRequest, HTTPReply) -> Void = { _, _ in }) {
        self.answered = answered
        self.handover = handover
        self.limits = limits
        self.uploads = uploads
        self.logger = logger
        warnings = ThrottledWarnings(logger: logger)
        self.examineHead = examineHead
        self.handle = handle
        logTarget.initialize(to: swmhd_log_target(write: Self.logHandler, context: nil))
    }

    deinit {
        logTarget.deallocate()
    }

    private static let logHandler: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void = { context, message in
        guard let context, let message else { return }
        let server = Unmanaged<MHDServer>.fromOpaque(context).takeUnretainedValue()
        let text = String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
        server.logger.debug("libmicrohttpd: \(text)")
        if text.hasPrefix("Hit process or system resource limit") { server.acceptFailedForWantOfResources() }
    }

    /// How long the listening thread pauses after an accept() that failed for want of a descriptor.
    static let pauseAtResourceLimit: useconds_t = 100_000

    /// Called on the listening thread when accept() failed for want of a file descriptor (the
    /// process's limit, EMFILE, or the system's) or of memory. libmicrohttpd's thread-per-connection
    /// listener polls the listening socket again at once, and the socket stays readable while
    /// clients wait in its backlog: without a pause that thread spins at full CPU until a
    /// descriptor is free. Paused, it tries again ten times a second, so a connection that closes
    /// lets the next one in within 0.1 s; the clients wait in the backlog meanwhile.
    private func acceptFailedForWantOfResources() {
        var limit = rlimit()
        let soft = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 ? "\(limit.rlim_cur)" : "unknown"
        let open = connections.withLock { $0.byAddress.count }
        warnings.warn(key: "resource limit",
                      "cannot accept a connection: the process has no file descriptor left (or the system none, or no memory); "
                          + "clients wait until a connection closes",
                      [("open_files_limit", soft),
                       ("hint", "raise the limit of open files (systemd: LimitNOFILE= in the service; a shell: ulimit -n), or "
                            + "lower max_connections")],
                      numbers: [("connections", LogNumber(open))])
        usleep(Self.pauseAtResourceLimit)
    }

    /// The state of one request across the handler's calls; released when MHD completes it.
    final class Exchange {
        var request: HTTPRequest
        var overLimit = false
        /// The bytes of the upload budget this request holds until it completes.
        var uploadBytesHeld = 0
        init(request: HTTPRequest) { self.request = request }
    }

    /// Binds `host:port` (IPv4) and starts serving; returns the bound port, and whether it is the
    /// socket of a server that stopped on `host:port` (a reload), which `handover` kept: served
    /// instead of binding, and given back to `handover` when it cannot start.
    func start(host: String, port: UInt16, tls: (key: String, certificate: String)?) throws -> (port: UInt16, kept: Bool) {
        let kept = handover?.take(address: (host, port))
        do {
            let bound = try start(host: host, port: port, tls: tls, listeningSocket: kept)
            if let kept { close(kept) }
            listening.withLock { $0 = (host, port) }
            return (bound, kept != nil)
        } catch {
            if let kept { handover?.release(kept, address: (host, port)) }
            throw error
        }
    }

    /// `start` on `listeningSocket` when given (bound to `host:port` and listening), which stays
    /// the caller's: libmicrohttpd serves a duplicate of it (and closes that when it cannot start).
    private func start(host: String, port: UInt16, tls: (key: String, certificate: String)?,
                       listeningSocket: Int32?) throws -> UInt16 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw SourceError(input: "\(host):\(port)", problem: "not an IPv4 address",
                              hint: "write listen as 127.0.0.1:8787 or 0.0.0.0:8787")
        }
        // poll(), not select(): select() cannot watch a descriptor numbered 1024 or more, and
        // libmicrohttpd drops such a connection unanswered, so a daemon holding many files (an
        // ndjson sink's, a large limit) would stop answering every client.
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue
            | MHD_USE_POLL.rawValue | MHD_USE_ITC.rawValue | MHD_USE_ERROR_LOG.rawValue
        let context = Unmanaged.passUnretained(self).toOpaque()
        logTarget.pointee.context = context
        let given = listeningSocket.map { fcntl($0, F_DUPFD_CLOEXEC, 0) } ?? -1
        let started: OpaquePointer? = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                swmhd_start(UInt32(flags), socketAddress, Self.accessHandler, context, Self.completedHandler, context,
                            Self.connectionHandler, context,
                            limits.connections, limits.connectionsPerAddress, limits.timeoutSeconds, 256 << 10,
                            tls?.key, tls?.certificate, given, logTarget)
            }
        }
        guard let started else {
            // libmicrohttpd says only that it did not start: with TLS, a free address (or the
            // socket a reload handed on, bound already) means the key or certificate was refused
            // (its own message about them is in the log above).
            if tls != nil, listeningSocket != nil || Self.canBind(address) {
                throw SourceError(input: "\(host):\(port)", problem: "cannot start HTTPS: the TLS key or certificate was refused",
                                  hint: "check that tls_key and tls_certificate are a PEM private key and the certificate that goes with it")
            }
            throw SourceError(input: "\(host):\(port)", problem: "cannot listen (address in use or not available)",
                              hint: "pick another port in listen, or stop what uses this one")
        }
        daemon.withLock { $0 = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(started))) }
        // libmicrohttpd reads the port of a socket it was given too.
        return swmhd_bound_port(started)
    }

    /// Whether a TCP socket can be bound to `address` now (and is closed again at once).
    static func canBind(_ address: sockaddr_in) -> Bool {
        let socketHandle = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketHandle >= 0 else { return false }
        defer { close(socketHandle) }
        var reuse: Int32 = 1
        setsockopt(socketHandle, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = address
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketHandle, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Stops accepting, waits up to `grace` seconds for the requests in flight, and closes
    /// them. A request whose body is still arriving (a slow phone, a client trickling bytes), or
    /// a connection accepted whose first request's headers are not in yet (a client that
    /// connected a moment before: its request may be in the socket already), is waited for
    /// `uploadGrace` seconds only, then cut: nothing of it was accepted, and a client that got no
    /// reply sends it again. One whose body is in is answered (its journal append
    /// ends). The listening socket is closed, or, during a reload, goes to `handover`, which
    /// keeps it open and bound: connections made meanwhile wait in its backlog for the next server.
    /// Returns true when the socket went to `handover` (still listening), false when it was closed.
    @discardableResult
    func stop(grace: Double = 30, uploadGrace: Double = 3) -> Bool {
        let address = daemon.withLock { value -> UInt in
            let current = value
            value = 0
            return current
        }
        guard let pointer = OpaquePointer(bitPattern: address) else { return false }
        let listener = MHD_quiesce_daemon(pointer)
        // A stop closes the socket at once: clients are refused rather than left waiting in its
        // backlog for the grace period. A reload keeps it for the next server, and hands it on
        // after MHD_stop_daemon (libmicrohttpd's threads may use it until then).
        let servedAddress = listening.withLock { $0 }
        let handingOn = listener >= 0 && servedAddress != nil && handover?.isReloading == true
        if listener >= 0, !handingOn { close(listener) }
        let started = Date()
        // A connection accepted just before the quiesce is waited for too: closed by
        // MHD_stop_daemon before its thread read the request, it was cut unanswered. Read awaiting
        // first: a request counts in flight before it stops awaiting (`access`), so one whose
        // headers came between the two reads is seen in flight.
        while connections.withLock({ $0.awaitingFirstRequest }) > 0 || inFlight.withLock({ $0 }) > 0 {
            let waited = Date().timeIntervalSince(started)
            if waited >= grace || (waited >= uploadGrace && answering.withLock({ $0 }) == 0) { break }
            usleep(5_000)
        }
        MHD_stop_daemon(pointer)
        if handingOn, let handover, let servedAddress {
            handover.release(listener, address: servedAddress)
            return true
        }
        return false
    }

    var requestsServed: Int { served.withLock { $0 } }
    /// The part of the upload budget the requests in flight hold (0 when none is receiving a body).
    var uploadBytesInUse: Int { uploads.bytesHeld }

    // MARK: - libmicrohttpd callbacks

    private static let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, data, size, state in
        let server = Unmanaged<MHDServer>.fromOpaque(context!).takeUnretainedValue()
        return server.access(connection: connection!, url: url, method: method, data: data, size: size!, state: state!)
    }

    private static let completedHandler: MHD_RequestCompletedCallback = { context, connection, state, _ in
        let server = Unmanaged<MHDServer>.fromOpaque(context!).takeUnretainedValue()
        // A kept-alive connection waits for its next request's headers.
        if let connection { server.armHeaderDeadline(MHDServer.address(of: connection)) }
        guard let state, let pointer = state.pointee else { return }
        let exchange = Unmanaged<Exchange>.fromOpaque(pointer).takeRetainedValue()
        state.pointee = nil
        server.uploads.giveBack(exchange.uploadBytesHeld)
        server.inFlight.withLock { $0 -= 1 }
    }

    private static let connectionHandler: MHD_NotifyConnectionCallback = { context, connection, _, event in
        guard let connection else { return }
        let server = Unmanaged<MHDServer>.fromOpaque(context!).takeUnretainedValue()
        let address = MHDServer.address(of: connection)
        switch event {
        case .CONNECTION_NOTIFY_STARTED:
            let socket = swmhd_connection_socket(connection)
            server.connections.withLock { $0.byAddress[address] = OpenConnections.Connection(socket: socket) }
            server.armHeaderDeadline(address)
        case .CONNECTION_NOTIFY_CLOSED:
            // libmicrohttpd closes the socket after this returns.
            server.connections.withLock { $0.byAddress[address] = nil }
        }
    }

    private static func address(of connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: connection)) }

    /// Gives the connection `limits.headerDeadlineSeconds` from now to complete a request's headers.
    private func armHeaderDeadline(_ connection: UInt) {
        let armed: UInt64? = connections.withLock { open in
            guard open.byAddress[connection] != nil else { return nil }
            open.deadlinesArmed += 1
            open.byAddress[connection]?.headerDeadline = open.deadlinesArmed
            return open.deadlinesArmed
        }
        guard let armed else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + limits.headerDeadlineSeconds) { [weak self] in
            self?.headerDeadlinePassed(connection, armed: armed)
        }
    }

    /// Shuts the connection's socket down if it still waits for the headers deadline `armed`
    /// was set for; its thread then reads the end of the stream and libmicrohttpd closes it.
    /// Under the lock the `CLOSED` notification takes, so the socket is still this connection's.
    private func headerDeadlinePassed(_ connection: UInt, armed: UInt64) {
        connections.withLock { open in
            guard let entry = open.byAddress[connection], entry.headerDeadline == armed, entry.socket >= 0 else { return }
            shutdown(entry.socket, Int32(SHUT_RDWR))
        }
    }

    private func access(connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                        data: UnsafePointer<CChar>?, size: UnsafeMutablePointer<Int>,
                        state: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let pointer = state.pointee else {
            // First call: the headers are in. Counted in flight before it stops awaiting its first
            // request, so that `stop`, which reads the two the other way round, never sees neither.
            inFlight.withLock { $0 += 1 }
            connections.withLock { open in
                open.byAddress[Self.address(of: connection)]?.headerDeadline = nil
                open.byAddress[Self.address(of: connection)]?.awaitingFirstRequest = false
            }
            var headers: [String: String] = [:]
            for name in Self.headerNames {
                if let value = MHD_lookup_connection_value(connection, .HEADER_KIND, name) {
                    headers[name] = String(cString: value)
                }
            }
            // Two lengths (a smuggling attempt, or a broken client): libmicrohttpd reads the body
            // by the first, a proxy in front may have by the last. No length, so a body route
            // answers 400 `bad content length` without reading it.
            if swmhd_header_count(connection, "content-length") > 1 { headers["content-length"] = nil }
            let arguments = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, nil, nil)
            var peer = [CChar](repeating: 0, count: 64)
            swmhd_connection_peer(connection, &peer, peer.count)
            let request = HTTPRequest(method: method.map { String(cString: $0) } ?? "GET",
                                      path: url.map { String(cString: $0) } ?? "/",
                                      hasQuery: arguments > 0, headers: headers,
                                      peer: String(decoding: peer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            let exchange = Exchange(request: request)
            state.pointee = Unmanaged.passRetained(exchange).toOpaque()
            if let early = examineHead(request) { return queue(early, to: request, on: connection) }
            let length = request.header("content-length").flatMap { Int($0) } ?? 0
            guard length <= uploads.capacity else { return queue(.contentTooLong, to: request, on: connection) }
            guard uploads.take(length) else { return queue(.uploadsBusy, to: request, on: connection) }
            exchange.uploadBytesHeld = length
            exchange.request.body.reserveCapacity(min(length, limits.bodyLimit))
            return .YES
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(pointer).takeUnretainedValue()
        if size.pointee > 0 {
            if exchange.request.body.count + size.pointee > limits.bodyLimit {
                exchange.overLimit = true
                exchange.request.body = []
            } else if !exchange.overLimit, let data {
                exchange.request.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size.pointee))
            }
            size.pointee = 0
            return .YES
        }
        if exchange.overLimit { return queue(.contentTooLong, to: exchange.request, on: connection) }
        answering.withLock { $0 += 1 }
        defer { answering.withLock { $0 -= 1 } }
        let reply = handle(exchange.request)
        served.withLock { $0 += 1 }
        return queue(reply, to: exchange.request, on: connection)
    }

    private func queue(_ reply: HTTPReply, to request: HTTPRequest, on connection: OpaquePointer) -> MHD_Result {
        answered(request, reply)
        let response = reply.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                            .RESPMEM_MUST_COPY)
        }
        guard let response else { return .NO }
        defer { MHD_destroy_response(response) }
        _ = MHD_add_response_header(response, "Content-Type", reply.contentType)
        for (name, value) in reply.headers { _ = MHD_add_response_header(response, name, value) }
        return MHD_queue_response(connection, UInt32(reply.status), response)
    }
}
