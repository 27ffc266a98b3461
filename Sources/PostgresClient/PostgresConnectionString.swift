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
        var error: UnsafeMutablePointer<CChar>?
        if let options = PQconninfoParse(url, &error) {
            PQconninfoFree(options)
        } else {
            defer { if let error { PQfreemem(error) } }
            let reason = error.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unreadable"
            return "libpq cannot read this url: \(reason)" + (suggestion(for: reason).map { " (did you mean '\($0)'?)" } ?? "")
        }
        // `postgres://user:p@ss@host/db`: libpq takes everything after the first `@` for the host.
        for scheme in ["postgres://", "postgresql://"] where url.hasPrefix(scheme) {
            let rest = url.dropFirst(scheme.count)
            let authority = rest.prefix { $0 != "/" && $0 != "?" }
            if authority.filter({ $0 == "@" }).count > 1 {
                return "the url's user or password holds '@': percent-encode it as %40 (and : / ? # as %3A %2F %3F %23)"
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
