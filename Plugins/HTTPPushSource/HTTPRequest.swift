/// One request as the handlers see it: method, exact path, headers they asked for, body.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string.
    public var path: String
    /// Whether the URL had a query string (Pulso's reference server answers 404 then).
    public var hasQuery: Bool
    /// Header values by lower-cased name (only the headers the server reads).
    public var headers: [String: String]
    public var body: [UInt8]
    /// The client's address (`192.0.2.7`), for logs; empty when unknown.
    public var peer: String

    public init(method: String, path: String, hasQuery: Bool = false, headers: [String: String] = [:], body: [UInt8] = [],
                peer: String = "") {
        self.method = method
        self.path = path
        self.hasQuery = hasQuery
        self.headers = headers
        self.body = body
        self.peer = peer
    }

    public func header(_ name: String) -> String? { headers[name] }
}
