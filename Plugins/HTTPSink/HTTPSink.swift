import Foundation
import HealthRouterCore

/// The `http` sink: a Pulso protocol client. Forwards samples and tombstones to any Pulso
/// server (or another healthrouter's `http_push`) as gzip JSON batches with a bearer token.
///
/// - `prepare()` checks `GET <url>/health` answers 2xx, and that `GET <url>/latest` does not
///   refuse the token (also what `check --connect` does); the core keeps the cursor (a Pulso
///   server has none).
/// - `write(_:cursor:)` posts the entries to `<url>/ingest` in bodies of at most 5,000
///   elements and 8 MiB uncompressed (`largestBatch`: the worker hands over one body's worth at
///   a time); each must be answered 2xx. A status that refuses the
///   content (413, or 400, 409, 422 with a Pulso error reply: `failure`) throws
///   `SinkError.rejected`: the worker splits the batch until
///   the refused entries are isolated as dead letters; after a 413 of several elements, bodies
///   are kept at half that size. A 2xx reply that lists elements it
///   `skipped` (another healthrouter's `http_push` does) throws `SinkError.partlyRefused` once
///   every body is sent: those entries become dead letters, the rest is delivered. 401/403 and an untrusted certificate
///   throw `SinkError.misconfigured` (a person must fix the token or `ca_file`). Anything else
///   (another status, no answer) throws `SinkError.unavailable`, and the worker retries the
///   batch with exponential backoff;
///   the receiver dedupes by uuid, so a re-sent body (of a batch split after part of it was
///   taken, too) is harmless.
public final class HTTPSink: Sink {
    public struct Configuration: Decodable, Sendable {
        /// The server's base URL (`https://health.example.org`); `/ingest` and `/health` are appended.
        public var url: String
        /// The bearer token, when the server wants one.
        public var token: String?
        /// Elements per request (at most 5,000).
        public var batchSize: Int?
        /// Per-request timeout (default 120s).
        public var timeout: ConfigDuration?
        /// Gzip the bodies (default true).
        public var gzip: Bool?
        /// Send healthrouter's additive fields (default true; Pulso servers ignore them).
        public var extensions: Bool?
        /// `pulso` (default: `POST /ingest`, JSON arrays) or `native` (`POST /v1/samples`,
        /// NDJSON, towards another healthrouter).
        public var format: Format?
        /// A PEM file of the certificates to trust for an `https` url instead of the system's
        /// (a self-signed certificate, or a private CA's); `~` is expanded.
        public var caFile: String?

        /// The wire format; a config value outside these is reported at its own line.
        public enum Format: String, Decodable, Sendable, CaseIterable {
            case pulso, native
        }

        public init(url: String, token: String? = nil) {
            self.url = url
            self.token = token
        }

        enum CodingKeys: String, CodingKey {
            case url, token, timeout, gzip, extensions, format
            case batchSize = "batch_size"
            case caFile = "ca_file"
        }
    }

    public let configuration: Configuration
    private let baseURL: String
    /// `baseURL` as messages say it: without a password it may carry (`user:pass@host`), since
    /// they reach the log, `status` and the admin listener's `/status`, which any local user reads.
    private let shownBaseURL: String
    private let logger: Logger
    private var session: CurlSession?
    /// Its `maxBytes` is lowered to `bodyLimit` when the receiver refuses a body of several
    /// elements as too large (413): each batch starting at full size again cost a 413 and a
    /// split of halves down to the size that passes.
    private var encoder: PulsoBatchEncoder
    /// The body size learnt from a 413, shared with the sinks built after this one by the same
    /// config (a worker's after a failure), until a restart or reload.
    private let bodyLimit: HTTPBodyLimit
    private let ingestPath: String
    private let caFile: String?
    /// What the sink sends that must not be shown: its token, and the url's password, also as
    /// basic auth sends it with the user (base64). A receiver that echoes the request (a debug
    /// page, a request bin at a wrong url) would put them in a reply quoted in a reason.
    private let secrets: [String]

    /// Checks the configuration without I/O; throws a `ConfigError` naming the key. `bodyLimit`:
    /// what an earlier sink of the config learnt from a 413 (`HTTPBodyLimit`); a new one by default.
    public init(configuration: Configuration, context: PluginContext, path: String = "",
                bodyLimit: HTTPBodyLimit = HTTPBodyLimit()) throws {
        self.configuration = configuration
        self.bodyLimit = bodyLimit
        logger = context.logger.with("sink", context.name)
        caFile = configuration.caFile.map(context.expandingTilde)
        var base = configuration.url.trimmingCharacters(in: .whitespaces)
        guard !base.isEmpty else {
            throw ConfigError(path: path + ".url", message: "url is empty", suggestion: "https://health.example.org")
        }
        if !base.contains("://") { base = "http://" + base }
        guard base.hasPrefix("http://") || base.hasPrefix("https://") else {
            throw ConfigError(path: path + ".url", message: "url must be http:// or https://, not '\(configuration.url)'")
        }
        let shown = URLPassword.hidden(in: configuration.url)
        guard !base.contains(where: \.isWhitespace), let components = URLComponents(string: base),
              let host = components.host, !host.isEmpty, (1...65_535).contains(components.port ?? 443) else {
            throw ConfigError(path: path + ".url", message: "'\(shown)' is not a URL",
                              suggestion: "write it as https://host[:port][/path] (a port from 1 to 65535), e.g. https://health.example.org")
        }
        guard components.query == nil, components.fragment == nil else {
            throw ConfigError(path: path + ".url", message: "'\(shown)' has a query or fragment: healthrouter appends /ingest "
                                  + "and /health to the url's path", suggestion: "give the server's base URL, e.g. https://health.example.org")
        }
        if let timeout = configuration.timeout, timeout.seconds < 1 {
            throw ConfigError(path: path + ".timeout", message: "timeout must be at least 1s (libcurl takes 0 for no limit: "
                                  + "a server that never answers would hold the sink for ever), not \(timeout)")
        }
        while base.hasSuffix("/") { base.removeLast() }
        if base.hasSuffix("/ingest") { base.removeLast("/ingest".count) }
        baseURL = base
        shownBaseURL = URLPassword.hidden(in: base)
        var secrets = [configuration.token ?? ""]
        if let range = URLPassword.range(in: base), let slashes = base.range(of: "//") {
            let password = String(base[range])
            let user = String(base[slashes.upperBound..<base.index(before: range.lowerBound)])
            let decoded = (user: user.removingPercentEncoding ?? user, password: password.removingPercentEncoding ?? password)
            secrets += [password, decoded.password, Data("\(decoded.user):\(decoded.password)".utf8).base64EncodedString()]
        }
        // Of 4 characters or more: a shorter one (a test's `pw`) would take letters out of every reply.
        self.secrets = secrets.filter { $0.count >= 4 }
        var encoder = PulsoBatchEncoder()
        if let size = configuration.batchSize {
            guard (1...5_000).contains(size) else {
                throw ConfigError(path: path + ".batch_size", message: "batch_size must be 1…5000, not \(size)")
            }
            encoder.maxElements = size
        }
        encoder.extensions = configuration.extensions ?? true
        switch configuration.format ?? .pulso {
        case .pulso:
            ingestPath = "/ingest"
        case .native:
            ingestPath = "/v1/samples"
            encoder.ndjson = true
            encoder.extensions = true
        }
        self.encoder = encoder
    }

    private var headers: [String] {
        [encoder.ndjson ? "Content-Type: application/x-ndjson" : "Content-Type: application/json"] + authorization
    }

    /// The bearer token's header, when there is a token.
    private var authorization: [String] {
        guard let token = configuration.token, !token.isEmpty else { return [] }
        return ["Authorization: Bearer \(token)"]
    }

    private func currentSession() -> CurlSession {
        if let session { return session }
        let fresh = CurlSession(timeoutSeconds: Int((configuration.timeout?.seconds ?? 120).rounded(.up)), caFile: caFile)
        session = fresh
        return fresh
    }

    public func prepare() throws -> Int64? {
        let url = shownBaseURL + "/health"
        do {
            var response = try currentSession().send(baseURL + "/health", shownAs: url, headers: [], body: nil)
            if response.status == 401 || response.status == 403, !authorization.isEmpty {
                // A proxy that wants the token on every path (nginx checking the bearer before any
                // route) refuses the open probe: asked again with the token, which the POSTs carry.
                // Refused with it too, the token is what to check.
                response = try currentSession().send(baseURL + "/health", shownAs: url, headers: authorization, body: nil)
                if response.status == 401 || response.status == 403 {
                    throw Self.failure(status: response.status, url: url, reply: quoted(response))
                }
            }
            guard (200..<300).contains(response.status) else {
                // A receiver that asks for time (429, 503 with Retry-After) is given it. Any other
                // status is retried as down, with what the reply and the status tell (where a
                // redirect leads: a proxy sending http:// to https:// redirects /health too, so that
                // the POST's message was never reached). /health is probed without the token, as
                // Pulso's app does: a 401 or 403 there says nothing of it.
                let failure = Self.failure(status: response.status, url: url, reply: quoted(response),
                                           retryAfter: response.retryAfter, location: response.location)
                if failure.retryAfter != nil { throw failure }
                throw SinkError.unavailable(response.status == 401 || response.status == 403
                                                ? Self.answer(url, response.status, quoted(response)) : failure.reason)
            }
        } catch let error as CurlSession.TransportError {
            throw Self.failure(error)
        }
        try probeToken()
        return nil
    }

    /// Throws `.misconfigured` when the receiver refuses the token (or its absence) on `GET
    /// <url>/latest` (401 or 403 with a Pulso error, `{"error": "unauthorized"}`), before any batch
    /// is sent: `/health` is open in Pulso's protocol, so that `check --connect` said a sink with a
    /// wrong token was connected. `/latest` wants the token on a Pulso server (v1.2) and on another
    /// healthrouter's `http_push`; any other answer (404 from a server without it, a failure, a
    /// proxy's page refusing a path it does not pass on, as one that lets only `/ingest` and
    /// `/health` through answers) says nothing of the token, and is passed over.
    private func probeToken() throws {
        let url = shownBaseURL + "/latest"
        let response: CurlSession.Response
        do {
            response = try currentSession().send(baseURL + "/latest", shownAs: url, headers: authorization, body: nil)
        } catch is CurlSession.TransportError {
            session = nil
            return
        }
        if response.status == 401 || response.status == 403, Self.isPulsoError(response.text) {
            throw Self.failure(status: response.status, url: url, reply: quoted(response))
        }
    }

    /// A reply as reasons quote it: with `secrets` shown as `…`.
    private func quoted(_ response: CurlSession.Response) -> String { redacted(response.text) }

    /// `text` with `secrets` shown as `…`.
    private func redacted(_ text: String) -> String {
        secrets.reduce(text) { $0.replacingOccurrences(of: $1, with: "…") }
    }

    /// One body's elements: every body the receiver acknowledges moves the cursor.
    public var largestBatch: Int? { encoder.maxElements }

    /// The error for a request that got no answer: `.misconfigured` when the server's certificate
    /// is not trusted or `ca_file` cannot be read (nothing passes until a person fixes it),
    /// `.unavailable` otherwise (retried), saying what to change where the failure hints at a
    /// wrong scheme (a failed TLS handshake on `https`, no reply at all on `http`) or a short timeout.
    static func failure(_ error: CurlSession.TransportError) -> SinkError {
        switch error.code {
        case 60:   // CURLE_PEER_FAILED_VERIFICATION
            .misconfigured("\(error): the server's certificate is not trusted (self-signed, a private CA's, or for "
                               + "another name): set ca_file to the PEM of the CA or certificate that signed it, or "
                               + "use the name the certificate is for")
        case 77:   // CURLE_SSL_CACERT_BADFILE
            .misconfigured("\(error): ca_file cannot be read as PEM certificates: check its path and content")
        case 35 where error.url.hasPrefix("https://"):   // CURLE_SSL_CONNECT_ERROR
            .unavailable("\(error) (the TLS handshake failed: if the receiver serves plain http on this port, "
                             + "set the sink's url to http://)")
        case 52 where error.url.hasPrefix("http://"):    // CURLE_GOT_NOTHING
            .unavailable("\(error) (the receiver closed the connection without a reply: if it serves https on this "
                             + "port, as an http_push with tls_certificate does, set the sink's url to https://)")
        case 28:   // CURLE_OPERATION_TIMEDOUT
            .unavailable("\(error) (the sink's timeout is \(error.timeoutSeconds)s: raise `timeout` "
                             + "for a receiver that takes longer, or lower `batch_size`)")
        default:
            .unavailable(error.description)
        }
    }

    public func write(_ entries: [JournalEntry], cursor: Int64) throws {
        let url = shownBaseURL + ingestPath
        let gzip = configuration.gzip ?? true
        var headers = self.headers
        if gzip { headers.append("Content-Encoding: gzip") }
        // Elements a receiver took the body without: another healthrouter's `http_push` names them.
        var refusals: [SinkError.Refusal] = []
        if let learnt = bodyLimit.bytes, learnt < encoder.maxBytes { encoder.maxBytes = learnt }
        for body in encoder.bodies(entries) {
            let elements = body.elements
            let payload = gzip ? GzipDeflater.gzip(body.bytes, level: 1) : body.bytes
            let response: CurlSession.Response
            do {
                response = try currentSession().send(baseURL + ingestPath, shownAs: url, headers: headers, body: payload)
            } catch let error as CurlSession.TransportError {
                session = nil
                throw Self.failure(error)
            }
            guard (200..<300).contains(response.status) else {
                if response.status == 413 { shrinkBodies(refused: body) }
                throw Self.failure(status: response.status, url: url, reply: quoted(response), original: response.text,
                                   retryAfter: response.retryAfter,
                                   location: response.location)
            }
            // A Pulso server acknowledges a batch with `"received": <element count>`; any other 2xx
            // (a proxy's page, a server that is not a Pulso server) has not stored it.
            guard Self.received(in: response.body) == elements else {
                throw SinkError.unavailable("\(url) answered \(response.status) without \"received\": \(elements) "
                                                + "(\(Self.excerpt(quoted(response), 120))): not a Pulso server, or it did not take "
                                                + "the whole batch; check the sink's url")
            }
            for (index, reason) in Self.skipped(in: response.body, elements: elements) {
                refusals.append(SinkError.Refusal(sequence: entries[body.positions[index]].sequence,
                                                  reason: "\(url) answered \(response.status) but skipped it: \(redacted(reason))"))
            }
        }
        if !refusals.isEmpty { throw SinkError.partlyRefused(refusals) }
    }

    /// After a 413 for `refused`, a body of several elements: later bodies hold at most half its
    /// uncompressed bytes (not under `smallestBodyLimit`), so that the batches after the split of
    /// this one are sent in bodies the receiver takes, within a factor of two of its limit. A body
    /// of one element says nothing of the limit (that element alone is too large: a dead letter).
    private func shrinkBodies(refused: PulsoBatchEncoder.Body) {
        let limit = max(refused.bytes.count / 2, Self.smallestBodyLimit)
        // The next `write` takes it (this one's bodies are made already).
        guard refused.elements > 1, limit < encoder.maxBytes, bodyLimit.lower(to: limit) else { return }
        logger.warning("the receiver refused a body of \(refused.bytes.count) bytes as too large (413): bodies of at most "
                           + "\(limit) bytes from now on (until a restart); raise the limit of the receiver or of its proxy "
                           + "(nginx: client_max_body_size) to send larger ones",
                       numbers: [("refused_bytes", LogNumber(refused.bytes.count)), ("body_limit", LogNumber(limit))])
    }

    /// The least `maxBytes` a 413 lowers it to: a few elements a body.
    static let smallestBodyLimit = 4_096

    /// The elements a 200 reply says were not stored: another healthrouter's `http_push` lists
    /// them in `skipped` (an extra field, which the Pulso protocol allows), each with its `index`
    /// in the body, the `field` at fault and the `reason`. Entries without an `index` naming one of
    /// the body's `elements` are passed over, as is a reply without the field (Pulso's server):
    /// its elements count as delivered. Each index once, with its reason (`field: reason`).
    static func skipped(in reply: [UInt8], elements: Int) -> [(index: Int, reason: String)] {
        guard case .object(let fields)? = try? JSONParser.parse(reply[...]),
              case .array(let listed)? = fields.first(where: { $0.key == "skipped" })?.value else { return [] }
        var seen = Set<Int>()
        var skipped: [(index: Int, reason: String)] = []
        for case .object(let element) in listed {
            // Control characters and line breaks as `?`: a line break would forge a line of `status`
            // or of a text log, which show the reason.
            func text(_ key: String) -> String? {
                guard case .string(let value)? = element.first(where: { $0.key == key })?.value else { return nil }
                return value.controlCharactersAsQuestionMarks(lineSeparators: true)
            }
            guard case .number(let number)? = element.first(where: { $0.key == "index" })?.value,
                  let index = Int(exactly: number), (0..<elements).contains(index), seen.insert(index).inserted else { continue }
            // Clipped, and on one line: the reason is stored with the dead letter, and another server may say anything.
            let reason = String((text("reason") ?? "no reason given").prefix(300))
            skipped.append((index, text("field").map { "\($0.prefix(60)): \(reason)" } ?? reason))
        }
        return skipped
    }

    /// Statuses by which a receiver refuses the content of a body (`400` bad request, `409`
    /// conflict, `422` unprocessable), when it says so as a Pulso server does (`{"error": …}`):
    /// sending the same body again cannot succeed, smaller ones may. Another reply with such a
    /// status (FastAPI's `{"detail": …}`, a proxy's page) is a receiver that is not the one
    /// meant, which would refuse every entry: it is retried as unavailable, not turned into dead letters.
    static let contentRefusals: Set<Int> = [400, 409, 422]

    /// The error for a non-2xx `status` from `url`: `.rejected` (the worker splits the batch until
    /// the refused entries are isolated as dead letters) for `413` (too large, as a proxy's body
    /// limit answers, whatever its page says) and for a `contentRefusals` status with a Pulso
    /// error reply; `.misconfigured` for 401/403 (a token to fix: nothing passes until then);
    /// `.busy` for 429 and 503 with `Retry-After` (retried whole, not before the seconds it asks);
    /// `.unavailable` for anything else, retried whole with backoff: 404/405 (a wrong url),
    /// 408/429/503 (busy), other 4xx and 5xx. The reason names
    /// the url, the status and the start of the reply, and what to check where that is known: of
    /// a redirect, the `location` it leads to (its password hidden) and the `url` to set.
    /// `original`: the reply as it came, when `reply` is the text shown (its secrets taken out),
    /// which is read to tell a Pulso error (a token `error` taken out of one would make it none).
    static func failure(status: Int, url: String, reply: String, original: String? = nil, retryAfter: Int? = nil,
                        location: String? = nil) -> SinkError {
        var reason = answer(url, status, reply)
        switch status {
        case 401, 403:
            reason += " (check the sink's token)"
        case 301, 302, 307, 308:
            if let location = location.map({ URLPassword.hidden(in: excerpt($0, 200)) }) {
                // The address with the route asked for, or another (a login page): the base to set
                // is the first one's without the route (the sink appends it).
                let route = ["/ingest", "/v1/samples", "/health", "/latest"].first { url.hasSuffix($0) && location.hasSuffix($0) }
                reason += " (a redirect to \(location), which the sink does not follow: "
                    + (route.map { "set the sink's url to \(location.dropLast($0.count)))" }
                        ?? "the receiver or a proxy before it wants another url: set the sink's url to the receiver's address)")
            } else {
                reason += " (a redirect, which the sink does not follow: the receiver or a proxy before it wants another "
                    + "url, often https:// for http://: set the sink's url to the address it names)"
            }
        case 404:
            // Nothing there: a url with a path the receiver does not serve (`/api`), or another
            // service at that address. Retried all the same (a proxy's route may come back).
            reason += " (nothing at this path: set the sink's url to the receiver's base address, such as "
                + "https://health.example.org or http://host:8787, to which healthrouter appends /health and /ingest)"
        case 413:
            reason += " (the receiver, or a proxy before it, refuses bodies this large: raise its limit, such as "
                + "nginx's client_max_body_size, or lower the sink's batch_size)"
        default:
            break
        }
        let refusesContent = status == 413 || (contentRefusals.contains(status) && isPulsoError(original ?? reply))
        if contentRefusals.contains(status) && !refusesContent {
            reason += " (not a Pulso server's refusal: check the sink's url)"
        }
        if status == 401 || status == 403 { return .misconfigured(reason) }
        if status == 429 || status == 503, let retryAfter {
            // The seconds stay out of the reason: a `Retry-After` date gives other seconds at each
            // reply, and a reason that changes is logged at every retry (`RetryWarningThrottle`).
            return .busy(reason + " (it asks for time: Retry-After; healthrouter waits as long, up to its limit)",
                         retryAfter: Double(retryAfter))
        }
        return refusesContent ? .rejected(reason) : .unavailable(reason)
    }

    /// `<url> answered <status> <the start of the reply>` (without the reply when it is empty, as a
    /// redirect's often is).
    static func answer(_ url: String, _ status: Int, _ reply: String) -> String {
        let text = excerpt(reply, 200)
        return "\(url) answered \(status)" + (text.isEmpty ? "" : " " + text)
    }

    /// The start of a receiver's reply (`length` characters at most) on one line, as a dead letter's
    /// reason or a last error keeps it: its lines joined by "; " (`asOneLine`: nginx's pages and
    /// pretty-printed JSON have several), any other control character as `?`. A line break would
    /// forge lines of `status`, which shows them.
    static func excerpt(_ reply: String, _ length: Int) -> String {
        String(reply.prefix(length)).asOneLine.controlCharactersAsQuestionMarks()
    }

    /// Whether `reply` is a Pulso error reply: a JSON object with an `error` string.
    static func isPulsoError(_ reply: String) -> Bool {
        guard case .object(let fields)? = try? JSONParser.parse(Array(reply.utf8)[...]),
              case .string? = fields.first(where: { $0.key == "error" })?.value else { return false }
        return true
    }

    /// The `received` count of a Pulso reply, nil when the reply is not a JSON object with one.
    static func received(in reply: [UInt8]) -> Int? {
        guard case .object(let fields)? = try? JSONParser.parse(reply[...]),
              case .number(let count)? = fields.first(where: { $0.key == "received" })?.value else { return nil }
        return Int(exactly: count)
    }

    public func close() {
        session = nil
    }
}
