import Foundation
import HealthRouterCore
import Synchronization

/// The `admin` listener: operations endpoints for the daemon, on their own address.
///
/// - `GET /metrics`: Prometheus text format — journal head, whether the journal refuses the
///   pushes' writes, samples accepted by the push
///   sources of this process (new, duplicate, changed, tombstoned ids), and per sink of the
///   config its cursor, lag (journal entries after the cursor that its routes select, as `status` counts), rows written, dead letters and
///   whether its last write failed. Every configured sink has its series from the start, before
///   it has written anything (an alert on a missing series is not silent); a sink the journal
///   remembers but the config no longer has is left out.
/// - `GET /status`: the same as JSON.
///
/// A long-running "source" that emits nothing: it is configured under `sources:` so it runs
/// with the daemon. It reads the journal on its own connection.
public final class AdminSource: ServiceSource {
    public struct Configuration: Decodable, Sendable {
        /// `host:port`, IPv4; a loopback address unless `allow_remote: true`.
        public var listen: String
        public var allowRemote: Bool?

        enum CodingKeys: String, CodingKey {
            case listen
            case allowRemote = "allow_remote"
        }
    }

    public let configuration: Configuration
    let host: String
    let port: UInt16
    private let context: PluginContext
    private let server = Mutex<MHDServer?>(nil)
    private let boundPort = Mutex<UInt16>(0)

    public init(configuration: Configuration, context: PluginContext, path: String = "") throws {
        self.configuration = configuration
        self.context = context
        guard let (host, port) = HTTPPushSource.splitListen(configuration.listen) else {
            throw ConfigError(path: path + ".listen", message: HTTPPushSource.listenProblem(configuration.listen),
                              suggestion: "write it as 127.0.0.1:9187")
        }
        guard HTTPPushSource.isLoopback(host) || configuration.allowRemote == true else {
            throw ConfigError(path: path + ".listen", message: "the admin listener has no authentication: keep it on 127.0.0.1",
                              suggestion: "or set allow_remote: true")
        }
        self.host = host
        self.port = port
    }

    public var listeningPort: UInt16 { boundPort.withLock { $0 } }

    public var listenAddress: (host: String, port: UInt16)? { (host, port) }

    /// Its 16 connections, its listening socket and wake-up channel, and its journal connection's files.
    public var openFilesNeeded: Int { 16 + 8 }

    public func start(ingest: PushIngest) throws {
        // Reads only: an inspector's connection (a count over every entry sorts in a file, not memory).
        let journal = Mutex(try Journal(stateDirectory: context.stateDirectory, role: .inspector))
        let sinkNames = context.sinkNames
        let routes = context.routes
        let report: @Sendable () -> AdminReport? = {
            journal.withLock { journal in
                try? AdminReport.read(journal: journal, sinkNames: sinkNames, routes: routes, pushed: ingest.appendedSoFar,
                                      journalWriteError: ingest.failingSince)
            }
        }
        let logger = context.logger
        let server = MHDServer(limits: MHDServer.Limits(connections: 16, timeoutSeconds: 10, bodyLimit: 0),
                               handover: context.listenerHandover, logger: logger, examineHead: { request in
            guard request.method == "GET", !request.hasQuery else { return .notFound }
            switch request.path {
            case "/metrics":
                guard let report = report() else { return .storageError }
                return HTTPReply(status: 200, body: Array(report.prometheus.utf8), contentType: "text/plain; version=0.0.4")
            case "/status":
                guard let report = report() else { return .storageError }
                return HTTPReply(status: 200, body: Array(report.json.utf8))
            default:
                return .notFound
            }
        }, handle: { _ in .notFound })
        let (bound, kept) = try server.start(host: host, port: port, tls: nil)
        boundPort.withLock { $0 = bound }
        self.server.withLock { $0 = server }
        context.logger.info(kept ? "admin listening on the socket kept through the reload" : "admin listening",
                            [("address", "\(host):\(bound)")])
    }

    public func stop() {
        let running = server.withLock { value -> MHDServer? in
            let current = value
            value = nil
            return current
        }
        running?.stop(grace: 5)
    }
}
