import Foundation
import HealthRouterCore

/// Answers the push routes (see `HTTPPushSource`): authentication and length checks on the
/// headers, then decoding, the journal append and the reply.
final class PushRequestHandler: Sendable {
    let sourceName: String
    let tokens: TokenTable
    let openUserId: String?
    let ingest: PushIngest
    let latest: LatestIndex
    let logger: Logger
    let bodyLimit: Int
    /// Shared with the server, which takes each body's `Content-Length` from it: what a gzip
    /// body inflates to is taken from it too, while the request is handled.
    let uploads: UploadBudget

    init(sourceName: String, tokens: TokenTable, openUserId: String?, ingest: PushIngest, latest: LatestIndex,
         logger: Logger, bodyLimit: Int, uploads: UploadBudget) {
        self.sourceName = sourceName
        self.tokens = tokens
        self.openUserId = openUserId
        self.ingest = ingest
        self.latest = latest
        self.logger = logger
        self.bodyLimit = bodyLimit
        self.uploads = uploads
    }

    enum Route {
        case ingest, native, hae, health, latest
    }

    /// Who pushes: the user's name (the `/latest` key) and the id samples get.
    struct Caller {
        var name: String
        var userId: String?
    }

    static func route(_ request: HTTPRequest) -> Route? {
        guard !request.hasQuery else { return nil }
        switch (request.method, request.path) {
        case ("POST", "/ingest"): return .ingest
        case ("POST", "/hae"): return .hae
        case ("POST", "/v1/samples"): return .native
        case ("GET", "/health"): return .health
        case ("GET", "/latest"): return .latest
        default: return nil
        }
    }

    /// The caller, or nil when a token is required and missing or wrong.
    func caller(_ request: HTTPRequest, route: Route) -> Caller? {
        if tokens.isEmpty { return Caller(name: "", userId: openUserId) }
        guard let token = TokenTable.presentedToken(request, allowAPIKey: route == .hae),
              let entry = tokens.user(presenting: token) else { return nil }
        return Caller(name: entry.user, userId: entry.userId)
    }

    /// A reply from the headers alone, or nil to read the body and call `handle`.
    func examineHead(_ request: HTTPRequest) -> HTTPReply? {
        guard let route = Self.route(request) else { return .notFound }
        switch route {
        case .health:
            return HTTPReply(status: 200, json: "{\"status\": \"ok\"}")
        case .latest:
            guard let caller = caller(request, route: route) else { return .unauthorized }
            return HTTPReply(status: 200, json: latest.json(user: caller.name))
        case .ingest, .native, .hae:
            guard caller(request, route: route) != nil else { return .unauthorized }
            guard let text = request.header("content-length"), let length = Int(text), length > 0 else {
                return .badContentLength
            }
            if length > bodyLimit { return .contentTooLong }
            return nil
        }
    }

    /// Answers a request whose body is in (its `Content-Length` held in `uploads` by the
    /// server). A gzip body's inflated bytes are taken from `uploads` as they grow and given back
    /// when the reply is made: when they do not fit beside the other requests' the reply is
    /// `uploadsBusy` (503, retry later), when they could never fit `bodyTooLarge` (413).
    func handle(_ request: HTTPRequest) -> HTTPReply {
        if let early = examineHead(request) { return early }
        guard let route = Self.route(request), let caller = caller(request, route: route) else { return .notFound }
        var body = request.body
        var inflatedBytesHeld = 0
        defer { uploads.giveBack(inflatedBytesHeld) }
        if let encoding = request.header("content-encoding"),
           encoding.trimmingCharacters(in: .whitespaces).lowercased() == "gzip" {
            var refused = 0
            do {
                body = try GzipInflater.inflate(body, limit: bodyLimit) { bytes in
                    guard uploads.take(bytes) else {
                        refused = bytes
                        return false
                    }
                    inflatedBytesHeld += bytes
                    return true
                }
            } catch .tooLarge {
                return .bodyTooLarge
            } catch .outOfMemoryBudget {
                let needed = request.body.count + inflatedBytesHeld + refused
                return needed > uploads.capacity ? .bodyTooLarge : .uploadsBusy
            } catch {
                return .badGzip
            }
        }
        switch route {
        case .ingest: return ingestPulso(body, caller: caller, native: false)
        case .native: return ingestPulso(body, caller: caller, native: true)
        case .hae: return ingestHealthAutoExport(body, caller: caller)
        case .health, .latest: return .notFound
        }
    }

    private func ingestPulso(_ body: [UInt8], caller: Caller, native: Bool) -> HTTPReply {
        let batch: PulsoBatchParser.Batch
        do {
            batch = native ? try PulsoBatchParser.parseNDJSON(body, userId: caller.userId)
                : try PulsoBatchParser.parse(body, userId: caller.userId)
        } catch .notArray {
            return .notArray
        } catch {
            return .badJSON
        }
        guard let result = append(batch.items, caller: caller) else { return .storageError }
        if batch.skipped > 0 { logger.debug("pulso: skipped \(batch.skipped) invalid elements") }
        do {
            try latest.record(batch.ends, user: caller.name)
        } catch {
            logger.warning("cannot update the /latest index", [("error", "\(error)")])
        }
        return Self.received(batch.received, result: result)
    }

    private func ingestHealthAutoExport(_ body: [UInt8], caller: Caller) -> HTTPReply {
        let payload: HealthAutoExportParser.Payload
        do {
            payload = try HealthAutoExportParser.parse(body, userId: caller.userId)
        } catch .notObject {
            return .error(400, "body must be a json object")
        } catch {
            return .badJSON
        }
        guard let result = append(payload.items, caller: caller) else { return .storageError }
        if payload.skipped > 0 { logger.debug("health auto export: skipped \(payload.skipped) data points") }
        return Self.received(payload.items.count, result: result)
    }

    /// Appends durably; nil (and a logged error) when the journal refused.
    private func append(_ items: [HealthItem], caller: Caller) -> AppendResult? {
        do {
            let result = try ingest.append(items, source: sourceName)
            if result.refusedOtherUsersIds > 0 {
                logger.warning("user \(caller.name) sent \(result.refusedOtherUsersIds) ids another user's samples have: "
                                   + "left out (an id is changed or deleted by the user who pushed it first)")
            }
            return result
        } catch {
            logger.error("cannot write the journal", [("error", "\(error)")])
            return nil
        }
    }

    static func received(_ received: Int, result: AppendResult) -> HTTPReply {
        HTTPReply(status: 200, json: "{\"received\": \(received), \"new\": \(result.newCount + result.changedCount), \"deleted\": \(result.deletedIds)}")
    }
}
