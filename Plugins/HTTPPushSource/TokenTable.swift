import CCrypto

/// The configured users' tokens, compared in constant time (`CRYPTO_memcmp`): a wrong
/// token takes as long to refuse whatever its prefix.
struct TokenTable: Sendable {
    struct Entry: Sendable {
        var user: String
        var userId: String
        var token: [UInt8]
        /// `forwarded_user_ids`: samples keep the `userId` they carry.
        var keepsUserIds = false
    }

    let entries: [Entry]

    var isEmpty: Bool { entries.isEmpty }

    /// The user whose token is `presented`, nil when none is.
    func user(presenting presented: String) -> Entry? {
        let bytes = Array(presented.utf8)
        var found: Entry?
        // Every entry is compared, so the time does not tell which user matched.
        for entry in entries {
            var equal = false
            if bytes.count == entry.token.count {
                equal = bytes.withUnsafeBytes { a in
                    entry.token.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
                }
            }
            if equal && found == nil { found = entry }
        }
        return found
    }

    /// The token a request presents: `Authorization: Bearer <token>`, else an `api-key` or
    /// `x-api-key` header (Health Auto Export's custom header) when `allowAPIKey`. Spaces and tabs
    /// around it are not part of it (HTTP's optional whitespace: a token pasted with a trailing
    /// space into an app's header field).
    /// Whether `request` presents two different tokens, one as `Authorization: Bearer` and one as
    /// `api-key`/`X-API-Key`: whose samples they are is not for the server to guess (the Bearer
    /// token's user was taken), so neither is taken.
    static func presentsTwoTokens(_ request: HTTPRequest) -> Bool {
        guard let key = (request.header("api-key") ?? request.header("x-api-key"))?.trimmingCharacters(in: .whitespaces),
              let bearer = presentedToken(request, allowAPIKey: false) else { return false }
        return key != bearer
    }

    static func presentedToken(_ request: HTTPRequest, allowAPIKey: Bool) -> String? {
        func trimmed(_ text: Substring) -> Substring {
            let isBlank = { (character: Character) in character == " " || character == "\t" }
            guard let first = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) })
            else { return "" }
            return text[first...last]
        }
        if let authorization = request.header("authorization") {
            let value = trimmed(authorization[...])
            if value.count > 7, value.prefix(7).lowercased() == "bearer " {
                return String(trimmed(value.dropFirst(7)))
            }
        }
        guard allowAPIKey, let key = request.header("api-key") ?? request.header("x-api-key") else { return nil }
        return String(trimmed(key[...]))
    }
}
