import CLibPQ
import Foundation
import HealthRouterCore

/// Checks a sink's `url` the way libpq will read it, without connecting (`check` runs it with
/// the config): an unknown parameter (`?sslmod=disable`) or a malformed URL is a config error
/// at the `url` line instead of a connection that fails, or one retried as if the server were
/// down. The messages never show the URL (it may hold a password).
public enum PostgresConnectionString {
    /// What is wrong with `url` (a `postgres://` URL or `key=value` conninfo), or nil.
    public static func problem(_ url: String) -> String? {
        // First: libpq's own message for such a url may quote a piece of the password.
        if let hazard = passwordHazard(url) { return hazard }
        var error: UnsafeMutablePointer<CChar>?
        if let options = PQconninfoParse(url, &error) {
            PQconninfoFree(options)
        } else {
            defer { if let error { PQfreemem(error) } }
            var reason = error.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unreadable"
            // libpq quotes the url, or a piece of it, in some messages (an unmatched `[`).
            if url.hasPrefix("postgres"), let range = URLPassword.range(in: url), !range.isEmpty {
                reason = reason.replacingOccurrences(of: url[range], with: "…")
            }
            // Of `key=value` pairs it quotes the word it stopped at, which may be a piece of an
            // unquoted password holding a space (`password=Sec ret3`), and of a URL a bad escape
            // in any value (`?password=Pass%zz`): not shown when the url holds a password there.
            if url.contains("password") {
                reason = "its message is left out, as it may quote a piece of the password; " + (url.contains("://")
                    ? "check the url's percent-escapes (a '%' is written %25; @ : / ? # as %40 %3A %2F %3F %23)"
                    : "check that values holding spaces are quoted (password='…') and that every word is key=value")
            }
            if let guess = suggestion(for: reason) { return "libpq cannot read this url: \(reason) (did you mean '\(guess)'?)" }
            // What a readable one looks like, unless said already (a password's escapes).
            return "libpq cannot read this url: \(reason)" + (url.contains("password") ? "" : "; write it as "
                + "postgres://user:password@host:5432/dbname, or as key=value words: host=… port=5432 dbname=… user=…")
        }
        return nil
    }

    /// Why libpq would read a piece of the user or password of the `postgres://` URL `url` as its
    /// host, port or database (which it then shows in its messages, and healthrouter in its
    /// logs and `status`), or nil. Never quotes the URL. libpq takes what comes before the first
    /// `@` as the user and password only when no `/` comes before that `@`:
    /// - then a second `@` before the host's end (`u:p@ss@host/db`) is a password's `@`; an `@`
    ///   in the database or a query value (`/my@db`, `?sslrootcert=/ca@2.pem`) is not;
    /// - else (`u:s3cr3t/pass@host/db`, a password holding `/`) libpq reads `u:s3cr3t` as the host
    ///   and port, whose port is no number, and the rest as the database, holding the real host
    ///   after an `@`. A host without a port, or with a number for one (`localhost:5432/my@db`,
    ///   `[::1]/my@db`), is a database named so.
    public static func passwordHazard(_ url: String) -> String? {
        guard let scheme = ["postgres://", "postgresql://"].first(where: { url.hasPrefix($0) }) else { return nil }
        let rest = url.dropFirst(scheme.count)
        let at = rest.firstIndex(of: "@"), slash = rest.firstIndex(of: "/")
        if let at, slash.map({ at < $0 }) ?? true {
            // libpq quotes a bad escape in its message (`invalid percent-encoded token: "Sec%zz"`).
            if rest[..<at].hasMalformedPercentEscape {
                return "the url's user or password holds a '%' that is no percent-escape: write a '%' as %25 "
                    + "(and @ : / ? # as %40 %3A %2F %3F %23)"
            }
            let host = rest[rest.index(after: at)...].prefix { $0 != "/" && $0 != "?" }
            guard host.contains("@") else { return nil }
            return "the url's user or password holds '@': percent-encode it as %40 (and : / ? # as %3A %2F %3F %23)"
        }
        guard let slash, let at, at > slash else { return nil }
        let hostAndPort = rest[..<slash].prefix { $0 != "?" }
        let afterHost = hostAndPort.lastIndex(of: "]").map { hostAndPort[hostAndPort.index(after: $0)...] } ?? hostAndPort
        guard let colon = afterHost.lastIndex(of: ":") else { return nil }
        let port = afterHost[afterHost.index(after: colon)...]
        guard !port.isEmpty, !port.allSatisfy(\.isASCIIDigit) else { return nil }
        guard rest[rest.index(after: slash)...].prefix(while: { $0 != "?" }).contains("@") else { return nil }
        return "the url's user or password holds '/' or '?', where libpq ends the host: percent-encode them "
            + "as %2F and %3F (and @ : # as %40 %3A %23)"
    }

    /// For libpq's `invalid … parameter: "sslmod"`, the parameter libpq knows that is closest.
    private static func suggestion(for reason: String) -> String? {
        let parts = reason.split(separator: "\"")
        guard reason.contains("parameter"), parts.count >= 2 else { return nil }
        let name = String(parts[1])
        guard let defaults = PQconndefaults() else { return nil }
        defer { PQconninfoFree(defaults) }
        var keywords: [String] = []
        var option = defaults
        while let keyword = option.pointee.keyword {
            keywords.append(String(cString: keyword))
            option += 1
        }
        return NameSuggester.closest(to: name, among: keywords)
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

private extension Substring {
    /// Whether a `%` in it is not followed by two hex digits.
    var hasMalformedPercentEscape: Bool {
        var position = startIndex
        while let percent = self[position...].firstIndex(of: "%") {
            position = index(after: percent)
            let digits = self[position...].prefix(2)
            if digits.count < 2 || !digits.allSatisfy({ $0.isHexDigit }) { return true }
        }
        return false
    }
}
