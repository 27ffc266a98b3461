/// The password a URL carries in its user part (`scheme://user:password@host/…`), as written: all
/// between the user's `:` and the last `@`, so that one holding an unencoded `@` or `/` is taken
/// whole (a path holding an `@` after a port may be taken with it). Messages, which reach the log,
/// `status` and the admin listener, show a sink's URL without it.
public enum URLPassword {
    /// Where the password stands in `url`, or nil when it has none.
    public static func range(in url: String) -> Range<String.Index>? {
        guard let slashes = url.range(of: "//") else { return nil }
        let rest = url[slashes.upperBound...]
        guard let at = rest.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") else { return nil }
        return url.index(after: colon)..<at
    }

    /// `url` with its password shown as `…` (`user:pass@host` → `user:…@host`).
    public static func hidden(in url: String) -> String {
        guard let range = range(in: url) else { return url }
        return url.replacingCharacters(in: range, with: "…")
    }
}
