/// Replaces `${NAME}` and `${NAME:-default}` in every scalar of a config tree with
/// values from an environment passed in (never read here, so tests need not touch
/// the process).
///
/// - `${NAME}`: the variable's value; unset is an error naming the variable, file, line and key path.
///   Set but empty is the empty text.
/// - `${NAME:-default}`: the default when the variable is unset or empty (as in a shell).
/// - `$${`: a literal `${`. Any other `$` is literal, so passwords with `$` need no escaping.
///
/// Keys are not substituted, only values. A substituted scalar remembers its template,
/// so error messages can name `${NAME}` instead of showing a secret.
///
/// Under a top-level section in `unused` (`sources`, for a command that starts none; `sinks`, for
/// one that opens none or only those `stillUsed` names, as `sinks.local`), a value naming an
/// unset variable is left as written instead of being an error: `status` next to a daemon need
/// not know its push tokens, nor a backfill into one store the token of another.
enum EnvironmentSubstitution {
    static func apply(to node: ConfigNode, environment: [String: String], path: String,
                      unused: Set<String> = [], stillUsed: Set<String> = []) throws(ConfigError) -> ConfigNode {
        switch node.value {
        case .null:
            return node
        case .scalar(let text):
            let components = path.split(separator: ".", maxSplits: 2)
            let section = components.first.map(String.init) ?? path
            let entry = components.count > 1 ? "\(components[0]).\(components[1])" : section
            guard let substituted = try substitute(text, environment: environment, location: node.location, path: path,
                                                   keepUnset: unused.contains(section) && !stillUsed.contains(entry)) else {
                return node
            }
            return ConfigNode(.scalar(substituted), location: node.location, template: text)
        case .sequence(let items):
            var result: [ConfigNode] = []
            result.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                result.append(try apply(to: item, environment: environment, path: path + "[\(index)]", unused: unused,
                                        stillUsed: stillUsed))
            }
            return ConfigNode(.sequence(result), location: node.location)
        case .mapping(let entries):
            var result: [ConfigNode.Entry] = []
            result.reserveCapacity(entries.count)
            for entry in entries {
                let value = try apply(to: entry.value, environment: environment, path: ConfigKeyPath.appending(entry.key, to: path),
                                      unused: unused, stillUsed: stillUsed)
                result.append(ConfigNode.Entry(key: entry.key, keyLocation: entry.keyLocation, value: value))
            }
            return ConfigNode(.mapping(result), location: node.location)
        }
    }

    /// The text with references replaced, or nil when it has none (the common case,
    /// which then allocates nothing), or when `keepUnset` and it names an unset variable.
    static func substitute(_ text: String, environment: [String: String],
                           location: ConfigLocation, path: String, keepUnset: Bool = false) throws(ConfigError) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: "$")) else { return nil }
        let dollar = UInt8(ascii: "$"), open = UInt8(ascii: "{"), close = UInt8(ascii: "}")
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var changed = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            // `$${` is an escaped `${`.
            if byte == dollar, index + 2 < bytes.count, bytes[index + 1] == dollar, bytes[index + 2] == open {
                out.append(dollar); out.append(open)
                index += 3
                changed = true
                continue
            }
            guard byte == dollar, index + 1 < bytes.count, bytes[index + 1] == open else {
                out.append(byte)
                index += 1
                continue
            }
            guard let end = bytes[(index + 2)...].firstIndex(of: close) else {
                throw ConfigError(at: location, path: path, message: "'${' without a closing '}'",
                                  suggestion: "write ${NAME}, or $${ for a literal '${'")
            }
            let reference = String(decoding: bytes[(index + 2)..<end], as: UTF8.self)
            let name: Substring
            let fallback: Substring?
            if let separator = reference.range(of: ":-") {
                name = reference[..<separator.lowerBound]
                fallback = reference[separator.upperBound...]
            } else {
                name = reference[...]
                fallback = nil
            }
            guard isVariableName(name) else {
                throw ConfigError(at: location, path: path, message: "'${\(reference)}' is not a valid environment variable reference",
                                  suggestion: "names are letters, digits and '_' (${NAME} or ${NAME:-default}); write $${ for a literal '${'")
            }
            let value = environment[String(name)]
            if let fallback, value?.isEmpty ?? true {
                out.append(contentsOf: fallback.utf8)
            } else if let value {
                out.append(contentsOf: value.utf8)
            } else if keepUnset {
                return nil
            } else {
                throw ConfigError(at: location, path: path, message: "environment variable '\(name)' is not set",
                                  suggestion: "set \(name) in the environment, or give a default: ${\(name):-value}")
            }
            index = end + 1
            changed = true
        }
        return changed ? String(decoding: out, as: UTF8.self) : nil
    }

    private static func isVariableName(_ name: Substring) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }
}
