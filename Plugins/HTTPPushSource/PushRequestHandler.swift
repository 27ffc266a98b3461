import Foundation
import HealthRouterCore
import Synchronization

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
    /// Refused pushes and skipped elements, written at warning level, rate-limited.
    let warnings: ThrottledWarnings

    /// The bodies being parsed and journaled, all requests of all push sources together (their
    /// samples take 10 to 20 times their size until journaled): 8 MiB of bodies at once, a larger
    /// body alone. Four 62 MB Health Auto Export bodies at once took a daemon limited to 3 GiB
    /// down; one at a time, they peak at 1.2 GB. (`parsing` is this one but in tests.)
    static let parsing = ParseBudget(capacity: 8 << 20)
    let parsing: ParseBudget

    init(sourceName: String, tokens: TokenTable, openUserId: String?, ingest: PushIngest, latest: LatestIndex,
         logger: Logger, bodyLimit: Int, uploads: UploadBudget, parsing: ParseBudget) {
        self.sourceName = sourceName
        self.tokens = tokens
        self.openUserId = openUserId
        self.ingest = ingest
        self.latest = latest
        self.logger = logger
        self.bodyLimit = bodyLimit
        self.uploads = uploads
        self.parsing = parsing
        warnings = ThrottledWarnings(logger: logger)
    }

    enum Route {
        case ingest, native, hae, health, latest
    }

    /// Who pushes: the user's name (the `/latest` key) and the id samples get.
    struct Caller {
        var name: String
        var userId: String?
        /// `forwarded_user_ids`: the samples a push carries keep their own `userId`.
        var keepsUserIds = false
    }

    static func route(_ request: HTTPRequest) -> Route? {
        guard !request.hasQuery else { return nil }
        switch (request.method, request.path) {
        case ("POST", "/ingest"): return .ingest
        case ("POST", "/hae"): return .hae
        case ("POST", "/v1/samples"): return .native
        case ("GET", "/health"), ("HEAD", "/health"): return .health
        case ("GET", "/latest"): return .latest
        default: return nil
        }
    }

    /// The caller, or nil when a token is required and missing or wrong.
    func caller(_ request: HTTPRequest, route: Route) -> Caller? {
        if tokens.isEmpty { return Caller(name: "", userId: openUserId) }
        if route == .hae, TokenTable.presentsTwoTokens(request) { return nil }
        guard let token = TokenTable.presentedToken(request, allowAPIKey: route == .hae),
              let entry = tokens.user(presenting: token) else { return nil }
        return Caller(name: entry.user, userId: entry.userId, keepsUserIds: entry.keepsUserIds)
    }

    /// A reply from the headers alone, or nil to read the body and call `handle`.
    func examineHead(_ request: HTTPRequest) -> HTTPReply? {
        guard let route = Self.route(request) else { return .notFound }
        switch route {
        case .health:
            // Up, but every push is refused: a monitor must see it.
            if let failure = ingest.failingSince {
                var writer = JSONWriter()
                writer.beginObject()
                writer.key("status"); writer.string("the journal refuses writes")
                writer.key("error"); writer.string(failure)
                writer.endObject()
                return HTTPReply(status: 503, json: writer.text)
            }
            return HTTPReply(status: 200, json: "{\"status\": \"ok\"}")
        case .latest:
            guard let caller = caller(request, route: route) else { return .unauthorized }
            return HTTPReply(status: 200, json: latest.json(user: caller.name))
        case .ingest, .native, .hae:
            guard caller(request, route: route) != nil else { return .unauthorized }
            // A body must come with its length, and only with it: with `Transfer-Encoding` too,
            // libmicrohttpd reads the chunks, however many, past what `Content-Length` reserved.
            guard request.header("transfer-encoding") == nil, let text = request.header("content-length"),
                  let length = Int(text), length > 0 else {
                return .badContentLength
            }
            if length > min(bodyLimit, uploads.capacity) { return route == .hae ? .healthAutoExportTooLarge : .contentTooLong }
            if let encoding = request.header("content-encoding")?.trimmingCharacters(in: .whitespaces).lowercased(),
               !["gzip", "identity", ""].contains(encoding) {
                return .unsupportedEncoding(encoding)
            }
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
        // Gzip as the header says, or by its magic bytes when no header says (a script that
        // forgot it): JSON never starts with 0x1F.
        let encoding = request.header("content-encoding")?.trimmingCharacters(in: .whitespaces).lowercased()
        if encoding == "gzip" || (encoding == nil && body.count >= 2 && body[body.startIndex] == 0x1F
                                  && body[body.startIndex + 1] == 0x8B) {
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
                return route == .hae ? .healthAutoExportTooLarge : .bodyTooLarge
            } catch .outOfMemoryBudget {
                let needed = request.body.count + inflatedBytesHeld + refused
                guard needed <= uploads.capacity else { return route == .hae ? .healthAutoExportTooLarge : .bodyTooLarge }
                return .uploadsBusy
            } catch {
                return .badGzip
            }
        }
        let parseShare = parsing.take(body.count)
        defer { parsing.giveBack(parseShare) }
        switch route {
        case .ingest, .native: return ingestPulso(body, caller: caller, request: request)
        case .hae: return ingestHealthAutoExport(body, caller: caller, request: request)
        case .health, .latest: return .notFound
        }
    }

    /// Logs a refusal (any status from 400 on) at warning level: route, status, the reply's
    /// reason, the user when the token was valid, the client's address. At most one line per
    /// route, status and reason every 10 s, with the count of those left out.
    func answered(_ request: HTTPRequest, _ reply: HTTPReply) {
        // A /health 503 says the journal refuses writes, which the pushes refused log.
        guard reply.status >= 400, Self.route(request) != .health else { return }
        let route = Self.route(request) != nil ? request.path : "other"
        let reason = Self.errorMessage(reply) ?? "status \(reply.status)"
        var hint: String?
        if reply.status == 401, let known = Self.route(request) {
            let headers = known == .hae ? "Authorization: Bearer <token>, api-key or X-API-Key" : "Authorization: Bearer <token>"
            if known == .hae, TokenTable.presentsTwoTokens(request) {
                hint = "two different tokens, one in Authorization and one in api-key or X-API-Key: send the user's token once"
            } else if TokenTable.presentedToken(request, allowAPIKey: known == .hae) != nil {
                hint = "a token no user under users has: compare the app's token with the config's"
            } else if let authorization = request.header("authorization"),
                      !authorization.trimmingCharacters(in: .whitespaces).isEmpty {
                // A token pasted as the header's whole value: its scheme is missing.
                hint = "the Authorization header has no `Bearer ` before the token: its value must be `Bearer <token>`"
                    + (known == .hae ? " (or send the token alone in an api-key or X-API-Key header)" : "")
            } else {
                hint = "no token: the app must send \(headers)"
            }
        }
        if let limits = Self.sizeHint(request, reply, limit: min(bodyLimit, uploads.capacity)) { hint = limits }
        // A route's path with a query string (a token put in the URL: `/hae?api-key=…`).
        if reply.status == 404, request.hasQuery, Self.route(HTTPRequest(method: request.method, path: request.path)) != nil {
            hint = "the URL has a query string (?…), which is not read: remove it, and send the token in a header"
        }
        // A missing and a wrong token are counted apart: they call for different fixes.
        warnings.warn(key: "\(route) \(reply.status) \(reason) \(hint ?? "")", "push refused", {
            var fields = [("route", route == "other" ? SkippedElement.clipped("\(request.method) \(Self.pathForTheLog(request.path))", limit: 80) : route),
                          ("reason", reason)]
            if let route = Self.route(request), !tokens.isEmpty, let caller = caller(request, route: route) {
                fields.append(("user", caller.name))
            }
            fields.append(("peer", request.peer))
            if let hint { fields.append(("hint", hint)) }
            if let detail = reply.logDetail { fields.append(("where", detail)) }
            return fields
        }(), numbers: [("status", LogNumber(reply.status))])
    }

    /// The first byte of `body` that is not JSON white space, or nil.
    static func firstByte(of body: [UInt8]) -> UInt8? {
        body.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
    }

    /// What a client does about a refused body length (400 or 413 `bad content length`, 413 `body
    /// too large`): the header it lacks, or the limit its body passed (`limit` bytes); nil for any
    /// other reply (`/hae`'s 413 says what to change in its body). For the log only: the reply is
    /// the reference server's. Without the body's length, which would key the throttle apart.
    static func sizeHint(_ request: HTTPRequest, _ reply: HTTPReply, limit: Int) -> String? {
        let mebibytes = "\(limit >> 20) MiB"
        switch (reply.status, errorMessage(reply)) {
        case (400, "bad content length"?):
            if request.header("transfer-encoding") != nil {
                return "a chunked upload (Transfer-Encoding), which is not taken: send the body with its Content-Length"
            }
            if let text = request.header("content-length"), let length = Int(text), length <= 0 {
                return "an empty body (Content-Length \(text)): send the samples as a JSON array"
            }
            return "no Content-Length header (or two): send the body with one, giving its size in bytes"
        case (413, "bad content length"?):
            return "the body's Content-Length is over the \(mebibytes) a body may hold (64 MiB, or max_upload_memory_mib when lower): "
                + "the app must send smaller batches"
        case (413, "body too large"?):
            return "the gzip body inflates past the \(mebibytes) a body may hold (64 MiB, or max_upload_memory_mib when "
                + "lower): the app must send smaller batches"
        default:
            return nil
        }
    }

    /// An unknown path as the log shows it: its first segment, the rest as `/…`, and a first
    /// segment that may be a secret (a digit in it, or longer than 16 characters) as `/…` too: a
    /// token put in the path (`/hae/<token>`, `/<token>`) is not written to the log.
    static func pathForTheLog(_ path: String) -> String {
        let afterSlash = path.dropFirst()
        let rest = afterSlash.firstIndex(of: "/")
        let first = afterSlash[..<(rest ?? afterSlash.endIndex)]
        if first.count > 16 || first.contains(where: \.isNumber) { return "/…" }
        return rest.map { String(path[..<$0]) + "/…" } ?? path
    }

    /// The `error` of a `{"error": "…"}` reply.
    static func errorMessage(_ reply: HTTPReply) -> String? {
        guard case .object(let fields)? = try? JSONParser.parse(reply.body[...]),
              case .string(let message)? = fields.first(where: { $0.key == "error" })?.value else { return nil }
        return message
    }

    /// Logs, rate-limited, that elements of a body answered 200 were skipped: how many, and the
    /// first few with the field at fault and why.
    private func warnSkipped(_ count: Int, of received: Int, examples: [String], request: HTTPRequest, caller: Caller) {
        guard count > 0 else { return }
        warnings.warn(key: "\(request.path) skipped", "push: elements skipped (answered 200, not stored)", {
            var fields = [("route", request.path)]
            if !tokens.isEmpty { fields.append(("user", caller.name)) }
            fields.append(("peer", request.peer))
            fields.append(("first", examples.joined(separator: "; ")))
            return fields
        }(), numbers: [("skipped", LogNumber(count)), ("received", LogNumber(received))])
    }

    /// Logs, rate-limited, that values came in a unit healthrouter cannot convert to their type's
    /// canonical one (`furlongs` for a body mass, none at all): they are stored in it, the `unit`
    /// column saying which, so a query that assumes the canonical unit must mind them. A Pulso
    /// value without a `unit` is in the protocol's unit for its type (§1.7), not unknown.
    private func warnUnconvertedUnits(_ items: [HealthItem], request: HTTPRequest, caller: Caller, unitMayBeOmitted: Bool) {
        var count = 0
        var first: String?
        for case .sample(let sample) in items where sample.kind == .quantity && sample.value != nil {
            if unitMayBeOmitted && sample.unit == nil { continue }
            guard let canonical = TypeRegistry.type(identifier: sample.type)?.canonicalUnit, sample.unit != canonical else { continue }
            count += 1
            if first == nil { first = sample.unit.map { "\(sample.type) in \(SkippedElement.quoted($0))" } ?? "\(sample.type) without units" }
        }
        guard let first else { return }
        warnings.warn(key: "\(request.path) units", "push: values in a unit that cannot be converted to their type's were stored in it", {
            var fields = [("route", request.path)]
            if !tokens.isEmpty { fields.append(("user", caller.name)) }
            fields.append(("first", first))
            fields.append(("hint", "send the type's unit or one healthrouter converts from (healthrouter types lists them)"))
            return fields
        }(), numbers: [("samples", LogNumber(count))])
    }

    private func ingestPulso(_ body: [UInt8], caller: Caller, request: HTTPRequest) -> HTTPReply {
        let native = request.path == "/v1/samples"
        var batch: PulsoBatchParser.Batch
        do {
            batch = native ? try PulsoBatchParser.parseNDJSON(body, userId: caller.userId, keepsUserIds: caller.keepsUserIds)
                : try PulsoBatchParser.parse(body, userId: caller.userId, keepsUserIds: caller.keepsUserIds)
        } catch .notArray {
            var reply = HTTPReply.notArray
            reply.logDetail = Self.firstByte(of: body) == UInt8(ascii: "{")
                ? "the body is a JSON object; \(request.path) takes an array of samples, [{…}, …], a tombstone being one of "
                    + "them ([{\"deleted\": [ids]}]); a Health Auto Export body ({\"data\": …}) goes to /hae"
                : "the body is a JSON value that is not an array; \(request.path) takes an array of samples, [{…}, …]"
            return reply
        } catch {
            return .badJSON(body, contentType: request.header("content-type"), lines: native)
        }
        guard let result = append(batch.items, caller: caller) else { return .storageError }
        if !result.refusedSampleIds.isEmpty {
            // `/latest` names what was stored: the ends again without the samples the journal
            // refused (rare: the body is read a second time).
            let leaving = result.refusedSampleIds
            if let again = try? (native
                ? PulsoBatchParser.parseNDJSON(body, userId: caller.userId, keepsUserIds: caller.keepsUserIds, endsLeavingOut: leaving)
                : PulsoBatchParser.parse(body, userId: caller.userId, keepsUserIds: caller.keepsUserIds, endsLeavingOut: leaving)) {
                batch.ends = again.ends
                batch.endsAhead = again.endsAhead
            }
        }
        warnUnconvertedUnits(batch.items, request: request, caller: caller, unitMayBeOmitted: true)
        warnSkipped(batch.skipped, of: batch.received, examples: batch.skips.prefix(PulsoBatchParser.reportedSkips).map(\.description),
                    request: request, caller: caller)
        if batch.leftOut > 0 {
            warnings.warn(key: "\(request.path) left out", "push: fields healthrouter could not read were left out of the samples stored", {
                var fields = [("route", request.path)]
                if !tokens.isEmpty { fields.append(("user", caller.name)) }
                fields.append(("first", batch.leftOutExamples.joined(separator: "; ")))
                return fields
            }(), numbers: [("samples", LogNumber(batch.leftOut))])
        }
        do {
            try latest.record(batch.ends, user: caller.name)
            if batch.endsAhead > 0 {
                warnings.warn(key: "\(request.path) ahead", "push: samples that end more than a day from now were stored, "
                                  + "and left out of /latest (a device whose clock is wrong?)", {
                    var fields = [("route", request.path)]
                    if !tokens.isEmpty { fields.append(("user", caller.name)) }
                    return fields
                }(), numbers: [("samples", LogNumber(batch.endsAhead))])
            }
        } catch {
            // Once every 10 s at most: a disk that holds the journal but not the index (its own
            // file) would fail every push's update.
            warnings.warn(key: "latest index", "cannot update the /latest index (the push was stored; after a restart, /latest answers without it)",
                          [("error", "\(error)")])
        }
        return Self.received(batch.received, result: result, skipped: Self.skippedElements(batch, result: result))
    }

    /// The elements of `batch`'s body that were not stored, in body order: those the parser
    /// skipped, and those the journal left out (`result`): a sample whose id another user's sample
    /// has or that was sent before under another type, a deletion naming another user's ids. At
    /// most `PulsoBatchParser.listedSkips`.
    static func skippedElements(_ batch: PulsoBatchParser.Batch, result: AppendResult) -> [SkippedElement] {
        var skipped = batch.skips
        if !result.refusedItems.isEmpty {
            // By position, not by id: a forwarded body's sample of alice's id is stored while a
            // deletion of it without a user is refused, and back; of two users' deletions of one
            // id, one may be taken and the other refused.
            for (position, (item, index)) in zip(batch.items, batch.itemIndices).enumerated() {
                guard let refusal = result.refusedItems[position] else { continue }
                switch (refusal, item) {
                case (.anotherUsersId, .sample(let sample)):
                    skipped.append(SkippedElement(index: index, uuid: sample.id, problem: .init(
                        field: "uuid", reason: "another user's sample has this id (an id is changed or deleted by the user "
                            + "who pushed it first)")))
                case (.anotherType, .sample(let sample)):
                    skipped.append(SkippedElement(index: index, uuid: sample.id, problem: .init(
                        field: "type", reason: "this uuid was sent before under another type, which it keeps")))
                case (.deletion(let refused), .tombstone(let tombstone)):
                    // Named as the element named it.
                    let first = tombstone.ids.first { SampleIdKey.canonicalCase($0) == refused[0] } ?? refused[0]
                    let more = refused.count > 1 ? " and \(refused.count - 1) more" : ""
                    skipped.append(SkippedElement(index: index, problem: .init(
                        field: "deleted", reason: "another user's samples have ids it names, which were not deleted: "
                            + SkippedElement.quoted(first) + more + " (an id is deleted by the user who pushed it first)")))
                default:
                    continue
                }
            }
            skipped.sort { $0.index < $1.index }
        }
        return Array(skipped.prefix(PulsoBatchParser.listedSkips))
    }

    private func ingestHealthAutoExport(_ body: [UInt8], caller: Caller, request: HTTPRequest) -> HTTPReply {
        let payload: HealthAutoExportParser.Payload
        do {
            payload = try HealthAutoExportParser.parse(body, userId: caller.userId)
        } catch .notObject {
            var reply = HTTPReply.error(400, "body must be a json object")
            reply.logDetail = "/hae takes Health Auto Export's JSON object, {\"data\": {\"metrics\": […]}}"
                + (Self.firstByte(of: body) == UInt8(ascii: "[") ? "; an array of Pulso samples goes to /ingest" : "")
            return reply
        } catch .notHealthAutoExport(let problem) {
            return .error(400, problem)
        } catch {
            // Health Auto Export shows the reply: one for a CSV export says what to change (on
            // /hae, healthrouter's own route, the reply need not be the reference server's).
            var reply = HTTPReply.badJSON(body, contentType: request.header("content-type"))
            if reply.logDetail?.hasPrefix("the body is multipart") == true {
                let log = reply.logDetail
                reply = .error(400, "bad json: the body is multipart form data (a CSV export): choose JSON as the export format")
                reply.logDetail = log
            }
            return reply
        }
        guard let result = append(payload.items, caller: caller) else { return .storageError }
        warnUnconvertedUnits(payload.items, request: request, caller: caller, unitMayBeOmitted: false)
        if payload.skipped > 0 {
            warnSkipped(payload.skipped, of: payload.items.count,
                        examples: HealthAutoExportSkips.examples(body, limit: PulsoBatchParser.reportedSkips),
                        request: request, caller: caller)
        }
        if payload.routePointsWithFieldsLeftOut > 0, logger.minimumLevel <= .info,
           let suppressed = warnings.admit(key: "\(request.path) route fields") {
            var fields = [("route", request.path)]
            if !tokens.isEmpty { fields.append(("user", caller.name)) }
            fields.append(("fields", HealthAutoExportParser.routeFieldsLeftOut.joined(separator: ", ")))
            logger.info("push: workout route points' fields a route point has no place for were left out (it keeps its time, "
                            + "position, altitude, horizontal and vertical accuracy, course and speed)", fields,
                        numbers: [("points", LogNumber(payload.routePointsWithFieldsLeftOut))]
                            + (suppressed > 0 ? [("suppressed", LogNumber(suppressed))] : []))
        }
        return Self.received(payload.items.count, result: result, skippedCount: payload.skipped)
    }

    /// Appends durably; nil (and a logged error) when the journal refused.
    private func append(_ items: [HealthItem], caller: Caller) -> AppendResult? {
        do {
            let result = try ingest.append(items, source: sourceName, forwardedBy: caller.keepsUserIds ? caller.userId : nil)
            if result.refusedOtherUsersIds > 0 {
                warnings.warn(key: "\(caller.name) foreign ids",
                              "push: ids another user's samples have were left out (an id is changed or deleted by the "
                                  + "user who pushed it first)",
                              [("user", caller.name)], numbers: [("ids", LogNumber(result.refusedOtherUsersIds))])
            }
            if result.idsOfAnotherType > 0 {
                warnings.warn(key: "\(caller.name) ids of another type",
                              "push: ids sent before under another type were left out (a uuid keeps the type it first came "
                                  + "with; the app sent one uuid for two samples)",
                              [("user", caller.name)], numbers: [("ids", LogNumber(result.idsOfAnotherType))])
            }
            return result
        } catch {
            // Once per 10 s while it lasts (a full disk refuses every push).
            if let suppressed = warnings.admit(key: "journal not written") {
                logger.error("cannot write the journal: the push is refused (500), and the app sends it again later",
                             [("error", "\(error)")], numbers: suppressed > 0 ? [("suppressed", LogNumber(suppressed))] : [])
            }
            return nil
        }
    }

    /// The 200 reply: Pulso's `received`, `new` and `deleted`, and, when elements were not stored,
    /// `skipped` (an extra field, which the protocol allows): each such element's `index` in the
    /// body (from 0), its `uuid` when it has one, the `field` at fault and the `reason`, so that
    /// another healthrouter's `http` sink parks them as dead letters instead of counting them delivered.
    /// `skippedCount` (`/hae`, whose data points have no index in the body nor uuid): how many data
    /// points, workouts and entries were skipped, as `"skipped": n` when more than 0 (the log names
    /// the first few).
    static func received(_ received: Int, result: AppendResult, skipped: [SkippedElement] = [], skippedCount: Int = 0) -> HTTPReply {
        var json = "{\"received\": \(received), \"new\": \(result.newCount + result.changedCount), \"deleted\": \(result.deletedIds)"
        if skippedCount > 0 { json += ", \"skipped\": \(skippedCount)" }
        if !skipped.isEmpty {
            var writer = JSONWriter(capacity: 64 * skipped.count)
            writer.beginArray()
            for element in skipped {
                writer.beginObject()
                writer.key("index")
                writer.int(Int64(element.index))
                writer.field("uuid", element.uuid)
                writer.field("field", element.problem.field)
                writer.field("reason", element.problem.reason)
                writer.endObject()
            }
            writer.endArray()
            json += ", \"skipped\": " + writer.text
        }
        return HTTPReply(status: 200, json: json + "}")
    }
}
