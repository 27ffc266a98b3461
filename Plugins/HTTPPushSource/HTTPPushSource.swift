import Foundation
import HealthRouterCore
import Synchronization

/// The `http_push` source: an HTTP server (libmicrohttpd) that phones push to.
///
/// Routes (pulso-protocol.md §1.2; statuses and bodies as Pulso's reference server answers):
/// - `POST /ingest`: Pulso protocol v1.2 (gzip or plain JSON array of samples and tombstones);
///   200 `{"received": n, "new": n, "deleted": n}` only after the journal commit.
/// - `POST /hae`: Health Auto Export's REST JSON (`{"data":{"metrics":[…],"workouts":[…]}}`);
///   200 `{"received": n, "new": n, "deleted": 0}`.
/// - `GET /health`: `{"status": "ok"}`, no token needed.
/// - `GET /latest`: the pushing user's newest `end` per type key.
///
/// Users: each token belongs to one user; every sample is stamped with that user's id and
/// `/latest` answers per user. Without users the server is open, which only a loopback
/// `listen` allows unless `allow_unauthenticated: true`.
public final class HTTPPushSource: ServiceSource {
    public struct Configuration: Decodable, Sendable {
        public struct User: Decodable, Sendable {
            /// The bearer token (or HAE `api-key`) this user pushes with.
            public var token: String
            /// The id samples are stamped with (default: the user's name).
            public var userId: String?
            /// Whether the samples this token pushes keep the `userId` they carry (another
            /// healthrouter's `http` sink forwarding several users' samples); those without one get
            /// `userId`. Such a token writes as any user: give it to a healthrouter you run only.
            public var forwardedUserIds: Bool?

            enum CodingKeys: String, CodingKey {
                case token
                case userId = "user_id"
                case forwardedUserIds = "forwarded_user_ids"
            }
        }

        /// `host:port`, IPv4 (`127.0.0.1:8787`, `0.0.0.0:8787`).
        public var listen: String
        public var users: [String: User]?
        /// Lets a non-loopback `listen` run without users (anyone reaching it can write).
        public var allowUnauthenticated: Bool?
        /// The user id of samples pushed without users configured.
        public var userId: String?
        /// At most this many connections at once (default 256).
        public var maxConnections: Int?
        /// At most this many of them from one client address (default 32).
        public var maxConnectionsPerAddress: Int?
        /// A connection idle this long is closed (default 60s).
        public var requestTimeout: ConfigDuration?
        /// A request's line and headers must be in within this long of the connection opening,
        /// or of its previous request's end, or the connection is closed (default 30s).
        public var headerTimeout: ConfigDuration?
        /// MiB: the bodies being received at once and what gzip bodies inflate to, all
        /// connections together (default 256); a push that does not fit is answered 503 with
        /// `Retry-After` (before its body is read when its `Content-Length` does not fit).
        public var maxUploadMemoryMiB: Int?
        /// PEM files for HTTPS; both or neither (`~` is expanded).
        public var tlsCertificate: String?
        public var tlsKey: String?

        enum CodingKeys: String, CodingKey {
            case listen, users
            case allowUnauthenticated = "allow_unauthenticated"
            case userId = "user_id"
            case maxConnections = "max_connections"
            case maxConnectionsPerAddress = "max_connections_per_address"
            case requestTimeout = "request_timeout"
            case headerTimeout = "header_timeout"
            case maxUploadMemoryMiB = "max_upload_memory_mib"
            case tlsCertificate = "tls_certificate"
            case tlsKey = "tls_key"
        }
    }

    /// Bodies larger than this, compressed or inflated, get 413 (Pulso's 64 MiB).
    public static let bodyLimit = 64 << 20

    public let configuration: Configuration
    let host: String
    let port: UInt16
    let tokens: TokenTable
    private let context: PluginContext
    /// The bodies parsed at once: every push source's together (`PushRequestHandler.parsing`),
    /// unless a test gives a source its own.
    let parsing: ParseBudget
    private let server = Mutex<MHDServer?>(nil)
    private let boundPort = Mutex<UInt16>(0)

    /// Checks the configuration without I/O; throws a `ConfigError` naming the key.
    public convenience init(configuration: Configuration, context: PluginContext, path: String = "") throws {
        try self.init(configuration: configuration, context: context, path: path, parsing: PushRequestHandler.parsing)
    }

    init(configuration: Configuration, context: PluginContext, path: String = "", parsing: ParseBudget) throws {
        self.configuration = configuration
        self.context = context
        self.parsing = parsing
        guard let (host, port) = Self.splitListen(configuration.listen) else {
            throw ConfigError(path: path + ".listen", message: Self.listenProblem(configuration.listen),
                              suggestion: "write it as 127.0.0.1:8787 (this machine only) or 0.0.0.0:8787 (every interface)")
        }
        self.host = host
        self.port = port
        var entries: [TokenTable.Entry] = []
        for (name, user) in (configuration.users ?? [:]).sorted(by: { $0.key < $1.key }) {
            // Spaces and tabs around it are not part of it, as around a token a request presents
            // (`TokenTable.presentedToken`): a stray one from an env file would match nothing.
            let token = user.token.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            guard !token.isEmpty else {
                throw ConfigError(path: path + ".users.\(name).token", message: "the token of user '\(name)' is empty",
                                  suggestion: "set it, e.g. token: \"${\(name.uppercased())_TOKEN}\"")
            }
            // A placeholder copied from an example is a token everybody knows.
            guard !token.lowercased().hasPrefix("change-me") else {
                throw ConfigError(path: path + ".users.\(name).token",
                                  message: "the token of user '\(name)' is an example's placeholder, which anybody could push with",
                                  suggestion: "set a secret of their own: openssl rand -hex 24 (and give the app the same)")
            }
            // A token names its user: two users with one token would push as whichever comes first.
            if let same = entries.first(where: { $0.token == Array(token.utf8) }) {
                throw ConfigError(path: path + ".users.\(name).token", message: "users '\(same.user)' and '\(name)' have the same token",
                                  suggestion: "give each user a token of their own (openssl rand -hex 24)")
            }
            // Guessed over the network: a 401 costs a client nothing but a round trip.
            if token.utf8.count < Self.shortToken && !Self.isLoopback(host) {
                context.logger.warning("the token of user '\(name)' is short (\(token.utf8.count) character\(token.utf8.count == 1 ? "" : "s")) for a listener "
                                           + "other machines reach: it could be guessed",
                                       [("key", path + ".users.\(name).token"),
                                        ("hint", "use a long random one: openssl rand -hex 24 (and give the app the same)")])
            }
            entries.append(TokenTable.Entry(user: name, userId: user.userId ?? name, token: Array(token.utf8),
                                            keepsUserIds: user.forwardedUserIds ?? false))
        }
        tokens = TokenTable(entries: entries)
        // `user_id` is the id of everybody's samples only when nobody has a token.
        if configuration.userId != nil, !entries.isEmpty {
            throw ConfigError(path: path + ".user_id",
                              message: "user_id applies only without users (it is the id of every sample pushed then), "
                                + "so here it would be ignored",
                              suggestion: "give each user theirs: users: {\(entries[0].user): {token: …, user_id: …}}, "
                                + "and remove this one")
        }
        // 0s would read as "no limit"; libmicrohttpd counts whole seconds.
        for (key, timeout, suggestion) in [("request_timeout", configuration.requestTimeout, "60s"),
                                           ("header_timeout", configuration.headerTimeout, "30s")] {
            guard let timeout, timeout.seconds < 1 else { continue }
            throw ConfigError(path: path + "." + key, message: "\(key) must be at least 1s, not \(timeout)",
                              suggestion: "\(key): \(suggestion)")
        }
        if tokens.isEmpty && !Self.isLoopback(host) && configuration.allowUnauthenticated != true {
            throw ConfigError(path: path + ".users",
                              message: "listen \(configuration.listen) is reachable from other machines but no users are configured",
                              suggestion: "add users: {alice: {token: \"${ALICE_TOKEN}\"}}, or set allow_unauthenticated: true")
        }
        for (key, value, range, suggestion) in [
            ("max_connections", configuration.maxConnections, 1...65_536, 256),
            ("max_connections_per_address", configuration.maxConnectionsPerAddress, 1...65_536, 32),
            ("max_upload_memory_mib", configuration.maxUploadMemoryMiB, 1...1_048_576, 256),
        ] {
            guard let value, !range.contains(value) else { continue }
            throw ConfigError(path: path + "." + key,
                              message: "\(key) must be \(range.lowerBound)…\(range.upperBound), not \(value)",
                              suggestion: "\(key): \(suggestion)")
        }
        if (configuration.tlsCertificate == nil) != (configuration.tlsKey == nil) {
            let given = configuration.tlsCertificate == nil ? "tls_key" : "tls_certificate"
            let missing = configuration.tlsCertificate == nil ? "tls_certificate" : "tls_key"
            throw ConfigError(path: path + "." + given, message: "\(given) without \(missing): HTTPS needs both",
                              suggestion: "add \(missing): (the PEM file of the \(missing == "tls_key" ? "certificate's private key" : "certificate")), "
                                + "or remove \(given) to serve plain HTTP")
        }
        // A private key every local user may read lets any of them pose as this server and read
        // the pushes (ssh refuses such a key; a group's, as Debian's ssl-cert, is the owner's choice).
        if let key = configuration.tlsKey.map(context.expandingTilde) {
            var info = stat()
            if stat(key, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & S_IROTH != 0 {
                context.logger.warning("the TLS key \(key) is readable by every user of this machine (mode "
                                           + "\(String(info.st_mode & 0o777, radix: 8))): any of them could pose as this server",
                                       [("key", path + ".tls_key"),
                                        ("hint", "chmod 600 \(key) (or 640 with a group the user running healthrouter is in)")])
            }
        }
    }

    /// The port actually bound (after `start`).
    public var listeningPort: UInt16 { boundPort.withLock { $0 } }

    public var listenAddress: (host: String, port: UInt16)? { (host, port) }

    /// A descriptor each connection (`max_connections`), and 8 for the listening socket,
    /// libmicrohttpd's wake-up channel, the `/latest` index's SQLite files and a TLS file read.
    public var openFilesNeeded: Int { (configuration.maxConnections ?? 256) + 8 }

    /// Bytes of the upload budget held by the bodies being received (0 when stopped).
    var uploadBytesInUse: Int { server.withLock { $0?.uploadBytesInUse ?? 0 } }

    public func start(ingest: PushIngest) throws {
        var tls: (key: String, certificate: String)?
        if let keyPath = configuration.tlsKey.map(context.expandingTilde),
           let certificatePath = configuration.tlsCertificate.map(context.expandingTilde) {
            tls = (try Self.readTLSFile(keyPath, key: "tls_key"), try Self.readTLSFile(certificatePath, key: "tls_certificate"))
        }
        let latest = try LatestIndex(path: (context.stateDirectory as NSString)
            .appendingPathComponent("http_push-\(context.name).sqlite"))
        let uploads = UploadBudget(capacity: (configuration.maxUploadMemoryMiB ?? 256) << 20)
        let handler = PushRequestHandler(sourceName: context.name, tokens: tokens, openUserId: configuration.userId,
                                         ingest: ingest, latest: latest, logger: context.logger,
                                         bodyLimit: Self.bodyLimit, uploads: uploads, parsing: parsing)
        var limits = MHDServer.Limits()
        if let connections = configuration.maxConnections { limits.connections = UInt32(connections) }
        if let perAddress = configuration.maxConnectionsPerAddress { limits.connectionsPerAddress = UInt32(perAddress) }
        if let timeout = configuration.requestTimeout { limits.timeoutSeconds = UInt32(max(1, timeout.seconds.rounded(.up))) }
        if let timeout = configuration.headerTimeout { limits.headerDeadlineSeconds = max(1, timeout.seconds) }
        limits.bodyLimit = Self.bodyLimit
        let logger = context.logger
        let server = MHDServer(limits: limits, uploads: uploads, handover: context.listenerHandover, logger: logger,
                               examineHead: { handler.examineHead($0) }, handle: { handler.handle($0) },
                               answered: { handler.answered($0, $1) })
        let (bound, kept) = try server.start(host: host, port: port, tls: tls)
        boundPort.withLock { $0 = bound }
        self.server.withLock { $0 = server }
        // A reload's kept socket was never closed: "listening" alone read as a new bind.
        context.logger.info(kept ? "listening on the socket kept through the reload" : "listening",
                            [("address", "\(host):\(bound)")], numbers: [("users", LogNumber(tokens.entries.count))])
    }

    public func stop() {
        guard let server = server.withLock({ value -> MHDServer? in
            let current = value
            value = nil
            return current
        }) else { return }
        let handedOn = server.stop()
        // A reload's kept socket goes on listening: "stopped listening" would say it closed.
        context.logger.info(handedOn ? "listener kept open for the reloaded config" : "stopped listening",
                            numbers: [("requests", LogNumber(server.requestsServed))])
    }

    static func splitListen(_ listen: String) -> (String, UInt16)? {
        guard let colon = listen.lastIndex(of: ":") else { return nil }
        var host = String(listen[..<colon])
        if host.isEmpty || host == "*" { host = "0.0.0.0" }
        if host == "localhost" { host = "127.0.0.1" }
        guard let port = UInt16(listen[listen.index(after: colon)...]) else { return nil }
        var probe = in_addr()
        guard inet_pton(AF_INET, host, &probe) == 1 else { return nil }
        return (host, port)
    }

    /// The most bytes a TLS file may have: a PEM key or certificate chain has a few KB.
    static let tlsFileLimit = 1 << 20

    /// The text of the PEM file `path`, which the config's `key` names; throws a `SourceError`
    /// naming the file, the key and why it cannot be read (missing, no permission, not a regular
    /// file, over `tlsFileLimit`, not text).
    static func readTLSFile(_ path: String, key: String) throws -> String {
        func failure(_ reason: String) -> SourceError {
            SourceError(input: path, problem: "cannot read the TLS file \(key) names: \(reason)",
                        hint: "set \(key) to a readable PEM file (the user running healthrouter must be able to read it)")
        }
        // Non-blocking: opening a named pipe waits for a writer otherwise.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw failure(String(cString: strerror(errno))) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(String(cString: strerror(errno))) }
        if info.st_mode & S_IFMT == S_IFDIR { throw failure("it is a folder") }
        // A device or a pipe may never end: /dev/zero was read until the process had taken every
        // byte of memory.
        guard info.st_mode & S_IFMT == S_IFREG else { throw failure("it is not a regular file (a device, a pipe or a socket)") }
        guard let data = try? handle.read(upToCount: Self.tlsFileLimit + 1) ?? Data() else { throw failure("it cannot be read") }
        guard data.count <= Self.tlsFileLimit else {
            throw failure("it has more than \(Self.tlsFileLimit / 1024) KiB, which no PEM key or certificate has")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SourceError(input: path, problem: "the TLS file \(key) names is not PEM text",
                              hint: "set \(key) to a PEM file (-----BEGIN …): convert a DER one with openssl")
        }
        return text
    }

    /// Why `splitListen` refuses `listen`, in words naming the part at fault: no port, a port
    /// out of range, or a host that is not an IPv4 address, `localhost` or `*` (a host name is not
    /// looked up).
    static func listenProblem(_ listen: String) -> String {
        guard let colon = listen.lastIndex(of: ":") else {
            return "listen must be host:port, not '\(listen)': the port is missing"
        }
        let port = listen[listen.index(after: colon)...]
        guard UInt16(port) != nil else {
            return "listen '\(listen)': the port must be a number from 1 to 65535, not '\(port)'"
        }
        return "listen '\(listen)': the host must be an IPv4 address, localhost or *, not '\(listen[..<colon])' "
            + "(a host name is not looked up)"
    }

    static func isLoopback(_ host: String) -> Bool { host.hasPrefix("127.") }

    /// Tokens shorter than this draw a warning on a listener other machines reach.
    static let shortToken = 16
}
