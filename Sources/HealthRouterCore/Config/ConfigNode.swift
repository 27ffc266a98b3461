/// One node of a parsed config file: a scalar, a mapping (key order kept), a
/// sequence, or null, with the place it was written. Plugins receive their options
/// as a `ConfigNode` and decode it with `ConfigDecoder`.
///
/// Scalars stay text: the decoder turns them into numbers, booleans or durations
/// when a `Decodable` type asks, so `port: "8787"` and `port: 8787` are the same.
/// A plain `~`, `null` or empty value is `.null`; a quoted `"null"` is the text.
public struct ConfigNode: Sendable, Hashable, Decodable, CustomStringConvertible {
    public enum Value: Sendable, Hashable {
        case null
        case scalar(String)
        case sequence([ConfigNode])
        case mapping([Entry])
    }

    /// One `key: value` of a mapping.
    public struct Entry: Sendable, Hashable {
        public var key: String
        /// Where the key was written (the value's own location may be on the next line).
        public var keyLocation: ConfigLocation
        public var value: ConfigNode

        public init(key: String, keyLocation: ConfigLocation, value: ConfigNode) {
            self.key = key
            self.keyLocation = keyLocation
            self.value = value
        }
    }

    public var value: Value
    public var location: ConfigLocation
    /// The scalar as written, when `${ENV}` substitution changed it. Error messages show
    /// this instead of the value, so that secrets never reach a log.
    public var template: String?

    public init(_ value: Value, location: ConfigLocation, template: String? = nil) {
        self.value = value
        self.location = location
        self.template = template
    }

    /// Whether a scalar in this node still holds a `${NAME}` reference that substitution left as
    /// written (an unset variable of a section the command does not use: `EnvironmentSubstitution`).
    public var holdsUnsetReference: Bool {
        switch value {
        case .null: false
        case .scalar(let text): template == nil && text.contains("${")
        case .sequence(let items): items.contains { $0.holdsUnsetReference }
        case .mapping(let entries): entries.contains { $0.value.holdsUnsetReference }
        }
    }

    /// An empty mapping, for code that builds configs.
    public static func emptyMapping(at location: ConfigLocation) -> ConfigNode {
        ConfigNode(.mapping([]), location: location)
    }

    public var isNull: Bool { if case .null = value { true } else { false } }

    /// The text of a scalar; nil for anything else.
    public var scalar: String? { if case .scalar(let text) = value { text } else { nil } }

    /// The entries of a mapping, in file order; nil for anything else.
    public var entries: [Entry]? { if case .mapping(let entries) = value { entries } else { nil } }

    /// The items of a sequence; nil for anything else.
    public var items: [ConfigNode]? { if case .sequence(let items) = value { items } else { nil } }

    /// The entry for `key` in a mapping; nil when absent or when this is not a mapping.
    public subscript(key: String) -> ConfigNode? {
        entries?.first { $0.key == key }?.value
    }

    /// Where the value at `path` below this node was written (`users.bob.token`, `to[1]`, as
    /// `ConfigError` paths print them): the deepest part of it that is there, for an error a
    /// plugin reports by path alone; nil when not even the first part is.
    public func location(ofPath path: String) -> ConfigLocation? {
        var node = self
        var found: ConfigLocation?
        for part in path.split(separator: ".", omittingEmptySubsequences: false) {
            // `key[1][2]`: the key, then each index.
            var pieces = part.split(separator: "[", omittingEmptySubsequences: false)
            let key = String(pieces.removeFirst())
            if !key.isEmpty {
                guard let entry = node.entries?.first(where: { $0.key == key }) else { return found }
                node = entry.value
                // A value on the line after its key (a mapping, a list): the key's line.
                found = node.isScalarOrNull ? node.location : entry.keyLocation
            }
            for piece in pieces {
                guard piece.hasSuffix("]"), let index = Int(piece.dropLast()), let items = node.items,
                      items.indices.contains(index) else { return found }
                node = items[index]
                found = node.location
            }
        }
        return found
    }

    private var isScalarOrNull: Bool {
        switch value {
        case .scalar, .null: true
        case .sequence, .mapping: false
        }
    }

    /// The value as an error message names it: `"many"`, `a mapping`, `a list`, `an empty value`.
    /// A value that came from `${ENV}` is named by its template, never by its content.
    public var kindDescription: String {
        switch value {
        case .null: return "an empty value"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        case .scalar(let text):
            if let template { return "the value of \(Self.quoted(template))" }
            return Self.quoted(text)
        }
    }

    /// The node as compact YAML-like text, for debugging and test failures.
    public var description: String {
        switch value {
        case .null: return "null"
        case .scalar(let text): return Self.quoted(text)
        case .sequence(let items): return "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .mapping(let entries):
            return "{" + entries.map { "\($0.key): \($0.value.description)" }.joined(separator: ", ") + "}"
        }
    }

    /// Takes the node itself when decoded by `ConfigDecoder`; other decoders cannot produce one.
    public init(from decoder: any Decoder) throws {
        guard let node = decoder.configNode else {
            throw DecodingError.typeMismatch(ConfigNode.self, .init(
                codingPath: decoder.codingPath, debugDescription: "a ConfigNode can only be decoded by ConfigDecoder"))
        }
        self = node
    }

    /// `"text"` with quotes and control characters escaped, cut after 60 characters.
    static func quoted(_ text: String) -> String {
        var out = "\""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == 60 { out += "…"; break }
            count += 1
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += "\\u{\(String(scalar.value, radix: 16))}" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}
