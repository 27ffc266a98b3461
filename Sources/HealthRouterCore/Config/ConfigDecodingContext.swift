/// The state of one `ConfigDecoder.decode` call: the root, the keys each mapping was
/// asked for, and the conversion of scalars. Used from one thread, for one call.
final class ConfigDecodingContext {
    /// The keys one mapping was asked for.
    final class KeyUsage {
        let node: ConfigNode
        let path: String
        var asked: Set<String> = []
        /// Keys the decoding type declares (its `CodingKeys`, when `CaseIterable`), for suggestions.
        var declared: [String] = []
        /// The type enumerated the keys (a dictionary): every key is known.
        var enumeratesAll = false

        init(node: ConfigNode, path: String) {
            self.node = node
            self.path = path
        }
    }

    let root: ConfigNode
    let rootPath: String
    private var usages: [String: KeyUsage] = [:]

    init(root: ConfigNode, rootPath: String) {
        self.root = root
        self.rootPath = rootPath
    }

    func path(_ codingPath: [any CodingKey]) -> String {
        ConfigKeyPath.string(root: rootPath, codingPath: codingPath)
    }

    /// The usage record of the mapping at `codingPath`, shared by every container made for it.
    func usage<Key: CodingKey>(for node: ConfigNode, codingPath: [any CodingKey], keyType: Key.Type) -> KeyUsage {
        let path = path(codingPath)
        if let usage = usages[path] { return usage }
        let usage = KeyUsage(node: node, path: path)
        usage.declared = Self.caseNames(of: Key.self) ?? []
        usages[path] = usage
        return usage
    }

    /// Throws for the first (in file order) key that no type asked for.
    func checkUnknownKeys() throws(ConfigError) {
        var first: (entry: ConfigNode.Entry, usage: KeyUsage)?
        for usage in usages.values where !usage.enumeratesAll {
            for entry in usage.node.entries ?? [] where !usage.asked.contains(entry.key) {
                if let current = first, (current.entry.keyLocation.line, current.entry.keyLocation.column)
                    <= (entry.keyLocation.line, entry.keyLocation.column) { continue }
                first = (entry, usage)
            }
        }
        guard let (entry, usage) = first else { return }
        throw unknownKey(entry, in: usage)
    }

    func unknownKey(_ entry: ConfigNode.Entry, in usage: KeyUsage) -> ConfigError {
        var known = usage.declared
        for key in usage.asked.sorted() where !known.contains(key) { known.append(key) }
        return ConfigError(at: entry.keyLocation, path: ConfigKeyPath.appending(entry.key, to: usage.path),
                           message: "unknown key", suggestion: NameSuggester.hint(for: entry.key, among: known))
    }

    // MARK: - Values

    /// Decodes any value: scalars directly, everything else through its `init(from:)`.
    func decodeValue<T: Decodable>(_ type: T.Type, node: ConfigNode, codingPath: [any CodingKey]) throws -> T {
        switch type {
        case is String.Type: return try string(node, codingPath) as! T
        case is Bool.Type: return try bool(node, codingPath) as! T
        case is Int.Type: return try integer(Int.self, node, codingPath) as! T
        case is Int8.Type: return try integer(Int8.self, node, codingPath) as! T
        case is Int16.Type: return try integer(Int16.self, node, codingPath) as! T
        case is Int32.Type: return try integer(Int32.self, node, codingPath) as! T
        case is Int64.Type: return try integer(Int64.self, node, codingPath) as! T
        case is UInt.Type: return try integer(UInt.self, node, codingPath) as! T
        case is UInt8.Type: return try integer(UInt8.self, node, codingPath) as! T
        case is UInt16.Type: return try integer(UInt16.self, node, codingPath) as! T
        case is UInt32.Type: return try integer(UInt32.self, node, codingPath) as! T
        case is UInt64.Type: return try integer(UInt64.self, node, codingPath) as! T
        case is Double.Type: return try floating(Double.self, node, codingPath) as! T
        case is Float.Type: return try floating(Float.self, node, codingPath) as! T
        default: break
        }
        if let cases = Self.caseNames(of: T.self), case .scalar(let text) = node.value, !cases.contains(text) {
            throw ConfigError(at: node.location, path: path(codingPath),
                              message: "expected one of \(cases.joined(separator: ", ")), found \(node.kindDescription)",
                              suggestion: NameSuggester.closest(to: text, among: cases).map { "did you mean '\($0)'?" })
        }
        return try T(from: ConfigNodeDecoder(node: node, codingPath: codingPath, context: self))
    }

    func mismatch(_ node: ConfigNode, _ codingPath: [any CodingKey], expected: String) -> ConfigError {
        ConfigError(at: node.location, path: path(codingPath), message: "expected \(expected), found \(node.kindDescription)",
                    suggestion: Self.shape(of: expected, key: codingPath.last?.stringValue))
    }

    /// How to write a value of the `expected` kind under `key`, for a config error's hint.
    static func shape(of expected: String, key: String?) -> String? {
        let key = key.flatMap { Int($0) == nil ? $0 : nil } ?? "key"
        switch expected {
        case "true or false": return "write \(key): true or \(key): false"
        case "a mapping":
            return "write its settings as 'name: value' lines indented under '\(key):' "
                + "(config/healthrouter.reference.yaml shows each section)"
        case "a list": return "write it as \(key): [a, b], or one '- item' a line under it"
        case "an integer": return "write a whole number, as \(key): 100"
        case "a number": return "write a number, as \(key): 1.5"
        case "a string": return "write text, quoted when it holds ': ' or starts with a special character: \(key): \"text\""
        default: return nil
        }
    }

    func string(_ node: ConfigNode, _ codingPath: [any CodingKey]) throws(ConfigError) -> String {
        guard let text = node.scalar else { throw mismatch(node, codingPath, expected: "a string") }
        return text
    }

    func bool(_ node: ConfigNode, _ codingPath: [any CodingKey]) throws(ConfigError) -> Bool {
        switch node.scalar?.lowercased() {
        case "true", "yes": return true
        case "false", "no": return false
        default: throw mismatch(node, codingPath, expected: "true or false")
        }
    }

    func integer<I: FixedWidthInteger>(_ type: I.Type, _ node: ConfigNode, _ codingPath: [any CodingKey]) throws(ConfigError) -> I {
        guard let text = node.scalar else { throw mismatch(node, codingPath, expected: "an integer") }
        let digits = text.utf8.contains(UInt8(ascii: "_")) ? text.filter { $0 != "_" } : text
        if let value = I(digits) { return value }
        var magnitude = Substring(digits)
        if magnitude.first == "-" || magnitude.first == "+" { magnitude = magnitude.dropFirst() }
        if !magnitude.isEmpty, magnitude.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            throw ConfigError(at: node.location, path: path(codingPath),
                              message: "expected an integer from \(I.min) to \(I.max), found \(node.kindDescription)",
                              suggestion: "give a smaller number")
        }
        throw mismatch(node, codingPath, expected: "an integer")
    }

    func floating<F: BinaryFloatingPoint & LosslessStringConvertible>(
        _ type: F.Type, _ node: ConfigNode, _ codingPath: [any CodingKey]) throws(ConfigError) -> F {
        guard let text = node.scalar else { throw mismatch(node, codingPath, expected: "a number") }
        let digits = text.utf8.contains(UInt8(ascii: "_")) ? text.filter { $0 != "_" } : text
        guard let value = F(digits), value.isFinite else { throw mismatch(node, codingPath, expected: "a number") }
        return value
    }

    // MARK: - Errors from types' own init(from:)

    /// A `DecodingError` thrown by a type's `init(from:)`, placed at the node its coding path names.
    func configError(from error: DecodingError) -> ConfigError {
        switch error {
        case .keyNotFound(let key, let context):
            let node = node(at: context.codingPath)
            return ConfigError(at: node.location, path: path(context.codingPath + [key]), message: "missing required key",
                               suggestion: "add '\(key.stringValue):'")
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let node = node(at: context.codingPath)
            return ConfigError(at: node.location, path: path(context.codingPath), message: context.debugDescription)
        @unknown default:
            return ConfigError(at: root.location, path: rootPath, message: "\(error)")
        }
    }

    /// The deepest node `codingPath` reaches from the root.
    private func node(at codingPath: [any CodingKey]) -> ConfigNode {
        var node = root
        for key in codingPath {
            if let items = node.items, let index = key.intValue, items.indices.contains(index) {
                node = items[index]
            } else if let child = node[key.stringValue] {
                node = child
            } else {
                break
            }
        }
        return node
    }

    // MARK: - Enums

    /// The raw values of a `CaseIterable` type backed by `String`; nil for other types.
    static func caseNames(of type: Any.Type) -> [String]? {
        guard let iterable = type as? any CaseIterable.Type else { return nil }
        return names(iterable)
    }

    private static func names<C: CaseIterable>(_ type: C.Type) -> [String]? {
        var names: [String] = []
        for value in type.allCases {
            if let key = value as? any CodingKey {
                names.append(key.stringValue)
            } else if let raw = (value as? any RawRepresentable)?.rawValue as? String {
                names.append(raw)
            } else {
                return nil
            }
        }
        return names
    }
}
