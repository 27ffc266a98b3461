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
            let reason = error.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unreadable"
            return "libpq cannot read this url: \(reason)" + (suggestion(for: reason).map { " (did you mean '\($0)'?)" } ?? "")
        }
        return nil
    }

    /// Why libpq would read a piece of the user or password of the `postgres://` URL `url` as its
    /// host, port or database (which it then shows in its messages, and healthrouter in its
    /// logs and `status`), or nil. libpq ends the user and password at the first `@` only when no
    /// `/` comes before it: `postgres://u:p@ss@host/db` (an `@` in the password) and
    /// `postgres://u:s3cr3t/pass@host/db` (a `/`, or a `?` then a `/`) leave an `@` that is not the
    /// value of a query parameter (`?user=me@server`). Never quotes the URL.
    public static func passwordHazard(_ url: String) -> String? {
        guard let scheme = ["postgres://", "postgresql://"].first(where: { url.hasPrefix($0) }) else { return nil }
        let rest = url.dropFirst(scheme.count)
        // libpq's end of the user and password: the first `@`, when no `/` comes before it.
        let end = rest.firstIndex { $0 == "@" || $0 == "/" }.flatMap { rest[$0] == "@" ? $0 : nil }
        var inQuery = false, inValue = false
        for character in end.map({ rest[rest.index(after: $0)...] }) ?? rest {
            switch character {
            case "?" where !inQuery: inQuery = true
            case "&" where inQuery: inValue = false
            case "=" where inQuery: inValue = true
            case "@" where !inValue:
                return end != nil
                    ? "the url's user or password holds '@': percent-encode it as %40 (and : / ? # as %3A %2F %3F %23)"
                    : "the url's user or password holds '/' or '?', where libpq ends the host: percent-encode them "
                        + "as %2F and %3F (and @ : # as %40 %3A %23)"
            default: break
            }
        }
        return nil
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
