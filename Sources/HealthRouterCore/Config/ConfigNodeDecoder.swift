/// The `Decoder` `ConfigDecoder` hands to a type's `init(from:)`, for one node.
struct ConfigNodeDecoder: Decoder {
    let node: ConfigNode
    let codingPath: [any CodingKey]
    let context: ConfigDecodingContext
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let entries: [ConfigNode.Entry]
        switch node.value {
        case .mapping(let list): entries = list
        case .null: entries = []
        default: throw context.mismatch(node, codingPath, expected: "a mapping")
        }
        let usage = context.usage(for: node, codingPath: codingPath, keyType: Key.self)
        return KeyedDecodingContainer(ConfigKeyedContainer<Key>(
            node: node, entries: entries, codingPath: codingPath, context: context, usage: usage))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch node.value {
        case .sequence(let items): return ConfigUnkeyedContainer(node: node, items: items, codingPath: codingPath, context: context)
        case .null: return ConfigUnkeyedContainer(node: node, items: [], codingPath: codingPath, context: context)
        default: throw context.mismatch(node, codingPath, expected: "a list")
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ConfigSingleValueContainer(node: node, codingPath: codingPath, context: context)
    }
}
