/// A mapping seen through a type's `CodingKeys`. Records every key asked for, so that
/// `ConfigDecodingContext` can report the keys nobody asked for.
struct ConfigKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let node: ConfigNode
    let entries: [ConfigNode.Entry]
    let codingPath: [any CodingKey]
    let context: ConfigDecodingContext
    let usage: ConfigDecodingContext.KeyUsage

    var allKeys: [Key] {
        usage.enumeratesAll = true
        return entries.compactMap { Key(stringValue: $0.key) }
    }

    func contains(_ key: Key) -> Bool {
        usage.asked.insert(key.stringValue)
        return entry(key) != nil
    }

    private func entry(_ key: Key) -> ConfigNode.Entry? {
        entries.first { $0.key == key.stringValue }
    }

    /// The value for `key`; a missing required key is an error, or, when the mapping has a
    /// key nobody asked for that looks like a typo of it, that key is the error.
    private func value(_ key: Key) throws -> ConfigNode {
        usage.asked.insert(key.stringValue)
        if let entry = entry(key) { return entry.value }
        let strangers = entries.filter { !usage.asked.contains($0.key) && Key(stringValue: $0.key) == nil }
        if let typo = NameSuggester.closest(to: key.stringValue, among: strangers.map(\.key)),
           let entry = strangers.first(where: { $0.key == typo }) {
            throw context.unknownKey(entry, in: usage)
        }
        // Keys nobody will ask for are probably this one under another name: say so.
        let others = strangers.isEmpty ? ""
            : " (it has " + strangers.map { "'\($0.key)'" }.joined(separator: ", ") + ", which is not a key here)"
        throw ConfigError(at: node.location, path: context.path(codingPath + [key]), message: "missing required key",
                          suggestion: "add '\(key.stringValue):' to \(usage.path.isEmpty ? "the file" : usage.path)\(others)")
    }

    private func decodeValue<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try context.decodeValue(T.self, node: value(key), codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key).isNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodeValue(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodeValue(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodeValue(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodeValue(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeValue(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeValue(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeValue(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeValue(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeValue(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeValue(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeValue(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeValue(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeValue(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeValue(type, key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decodeValue(type, key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> {
        try ConfigNodeDecoder(node: value(key), codingPath: codingPath + [key], context: context).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ConfigNodeDecoder(node: value(key), codingPath: codingPath + [key], context: context).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ConfigNodeDecoder(node: node, codingPath: codingPath, context: context)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        usage.asked.insert(key.stringValue)
        let child = entry(key)?.value ?? ConfigNode(.null, location: node.location)
        return ConfigNodeDecoder(node: child, codingPath: codingPath + [key], context: context)
    }
}
