/// A sequence, item by item.
struct ConfigUnkeyedContainer: UnkeyedDecodingContainer {
    let node: ConfigNode
    let items: [ConfigNode]
    let codingPath: [any CodingKey]
    let context: ConfigDecodingContext
    private(set) var currentIndex = 0

    init(node: ConfigNode, items: [ConfigNode], codingPath: [any CodingKey], context: ConfigDecodingContext) {
        self.node = node
        self.items = items
        self.codingPath = codingPath
        self.context = context
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private func current() throws -> ConfigNode {
        guard !isAtEnd else {
            throw ConfigError(at: node.location, path: context.path(codingPath), message: "the list has too few items (\(items.count))")
        }
        return items[currentIndex]
    }

    private var itemPath: [any CodingKey] { codingPath + [ConfigIndexKey(currentIndex)] }

    private mutating func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try context.decodeValue(T.self, node: current(), codingPath: itemPath)
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard try current().isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try decodeValue(type) }
    mutating func decode(_ type: String.Type) throws -> String { try decodeValue(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decodeValue(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decodeValue(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decodeValue(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeValue(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeValue(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeValue(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeValue(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeValue(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeValue(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeValue(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeValue(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeValue(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try ConfigNodeDecoder(node: current(), codingPath: itemPath, context: context).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try ConfigNodeDecoder(node: current(), codingPath: itemPath, context: context).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = try ConfigNodeDecoder(node: current(), codingPath: itemPath, context: context)
        currentIndex += 1
        return decoder
    }
}
