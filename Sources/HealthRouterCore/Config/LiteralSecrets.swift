/// The keys of a config that hold a secret written in the file itself, as against one a `${NAME}`
/// reference takes from the environment: what a config file every local user may read gives away.
///
/// A secret is the value of a `token` or `password` key (a push user's token, an http sink's), and
/// the password of a `url` (`scheme://user:password@host`, or a libpq `password=` word or query
/// parameter), under `sources` and `sinks`. It is written in the file when the text as written (the
/// template of a substituted value) holds it without a `${…}` reference; `$${` is a literal `${`.
/// Only key paths are returned, never a value.
public enum LiteralSecrets {
    /// The key paths (`sources.phone.users.bob.token`, `sinks.db.url`) of the secrets written in
    /// `config`'s text, in file order.
    public static func paths(in config: HealthRouterConfig) -> [String] {
        var found: [String] = []
        for plugin in config.sources + config.sinks {
            collect(plugin.options, key: nil, path: plugin.path, into: &found)
        }
        return found
    }

    private static func collect(_ node: ConfigNode, key: String?, path: String, into found: inout [String]) {
        switch node.value {
        case .null:
            return
        case .scalar(let value):
            guard let key else { return }
            // Left as written (an unset variable the command does not need): the template itself.
            let written = node.template ?? value
            if secrets(in: written, key: key).contains(where: isWrittenOut) { found.append(path) }
        case .sequence(let items):
            for (index, item) in items.enumerated() {
                collect(item, key: key, path: ConfigKeyPath.appending(index: index, to: path), into: &found)
            }
        case .mapping(let entries):
            for entry in entries {
                collect(entry.value, key: entry.key, path: ConfigKeyPath.appending(entry.key, to: path), into: &found)
            }
        }
    }

    /// The pieces of `text`, the value of `key` as written, that are secrets.
    static func secrets(in text: String, key: String) -> [Substring] {
        switch key {
        case "token", "password":
            return [text[...]]
        case "url":
            var pieces = URLPassword.range(in: text).map { [text[$0]] } ?? []
            pieces += passwordWords(in: text)
            return pieces
        default:
            return []
        }
    }

    /// The values of libpq's `password` keyword in `text`: a conninfo word (`password=x`,
    /// `password = 'a b'`) or a URL's query parameter (`?password=x&…`).
    static func passwordWords(in text: String) -> [Substring] {
        var found: [Substring] = []
        var rest = text[...]
        while let keyword = rest.range(of: "password") {
            rest = rest[keyword.upperBound...]
            var value = rest.drop { $0 == " " || $0 == "\t" }
            guard value.first == "=" else { continue }
            value = value.dropFirst().drop { $0 == " " || $0 == "\t" }
            if value.first == "'" {
                value = value.dropFirst()
                found.append(value.prefix { $0 != "'" })
            } else {
                found.append(value.prefix { !$0.isWhitespace && $0 != "&" })
            }
        }
        return found
    }

    /// Whether `piece` is a secret spelled out: not empty, and no `${` reference in it.
    static func isWrittenOut(_ piece: Substring) -> Bool {
        !piece.isEmpty && !piece.replacingOccurrences(of: "$${", with: "").contains("${")
    }
}
