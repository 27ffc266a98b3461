import HealthRouterCore

/// What the server answers: a status, a JSON body, and any headers besides `Content-Type`.
public struct HTTPReply: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
    public var contentType: String
    /// Sent as they are, e.g. `Retry-After`.
    public var headers: [String: String]
    /// Said in the log line of a refusal, never sent: where a body stops being JSON.
    public var logDetail: String?

    public init(status: Int, body: [UInt8], contentType: String = "application/json", headers: [String: String] = [:]) {
        self.status = status
        self.body = body
        self.contentType = contentType
        self.headers = headers
    }

    public init(status: Int, json: String) {
        self.init(status: status, body: Array(json.utf8))
    }

    /// `{"error": "<message>"}` with Python's `json.dumps` spacing, as Pulso's reference server writes it.
    public static func error(_ status: Int, _ message: String) -> HTTPReply {
        HTTPReply(status: status, json: "{\"error\": \"\(message)\"}")
    }

    public static let notFound = error(404, "not found")
    public static let unauthorized = error(401, "unauthorized")
    public static let badContentLength = error(400, "bad content length")
    public static let contentTooLong = error(413, "bad content length")
    public static let badGzip = error(400, "bad gzip body")
    public static let bodyTooLarge = error(413, "body too large")
    /// A `/hae` body over the limit: what to change in Health Auto Export.
    public static let healthAutoExportTooLarge = error(413, "body too large: in Health Auto Export, turn on Batch Requests "
                                                            + "in this automation's settings, or export a shorter date range")
    public static let badJSON = error(400, "bad json")

    /// `badJSON`, with where `body` stops being JSON for the log (the reply is the reference
    /// server's, whatever the body). `lines`: an NDJSON body, each line a JSON value of its own.
    public static func badJSON(_ body: [UInt8], contentType: String?, lines: Bool = false) -> HTTPReply {
        var reply = badJSON
        if contentType?.lowercased().hasPrefix("multipart/") == true || body.starts(with: Array("--".utf8)) {
            reply.logDetail = "the body is multipart form data, not JSON (a CSV export?): choose JSON as the export format"
            return reply
        }
        var number = 0
        for line in lines ? body.split(separator: 0x0A, omittingEmptySubsequences: false) : [body[...]] {
            number += 1
            do {
                if lines && line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
                // Strict, as the body was read: a leading zero or a lone surrogate is where it stops.
                let value = try JSONParser.parse(line, strict: true)
                if lines, case .object = value {} else if lines {
                    reply.logDetail = "line \(number): not a JSON object (each line is one sample or tombstone)"
                    return reply
                }
            } catch let failure as JSONParser.Failure {
                let within = line.prefix(failure.offset).reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
                reply.logDetail = "line \(number + within): \(failure)" + (lines ? " of the line" : " of the body")
                return reply
            } catch {
                reply.logDetail = "\(error)"
                return reply
            }
        }
        reply.logDetail = "JSON this server does not take (an unpaired \\u surrogate escape, or bytes that are not UTF-8)"
        return reply
    }
    /// A `Content-Encoding` other than gzip (`br`, `deflate`): refused before the body is read.
    public static func unsupportedEncoding(_ encoding: String) -> HTTPReply {
        // Only the characters a coding's name has: the client's text goes into JSON unescaped.
        let name = String(encoding.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || "0123456789-_.,".unicodeScalars.contains($0)) }
                              .prefix(24).map(Character.init))
        return error(415, "content-encoding '\(name)' is not supported: send the body as gzip or uncompressed")
    }
    public static let notArray = error(400, "body must be a json array")
    public static let storageError = error(500, "storage error")
    /// The bodies already being received fill the upload memory budget; nothing of this one was read.
    public static let uploadsBusy = HTTPReply(status: 503, body: error(503, "too many uploads at once").body,
                                              headers: ["Retry-After": String(uploadsBusyRetrySeconds)])
    /// The `Retry-After` of `uploadsBusy`, in seconds.
    public static let uploadsBusyRetrySeconds = 10
}
