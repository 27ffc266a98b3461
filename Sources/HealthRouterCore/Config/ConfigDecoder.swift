/// Decodes a `ConfigNode` into any `Decodable` type, with errors a person can act on.
///
/// Every plugin declares `struct Configuration: Decodable` with snake_case `CodingKeys`
/// and decodes its options with `ConfigDecoder.decode(Configuration.self, from: plugin.options,
/// path: plugin.path)`.
///
/// - **Unknown keys are an error.** A key is known when the type asked for it (`decode`,
///   `decodeIfPresent`, `contains`, `nestedContainer`, `superDecoder`) or enumerated
///   the mapping (`allKeys`, as `[String: T]` does). After decoding, any other key is
///   reported with its full path (`sinks.local.pth`) and the closest known key
///   (`did you mean 'path'?`). A type that reads a key only under some condition
///   should call `contains` for it.
/// - **Type mismatches** name the path and the expected type:
///   `sinks.local.batch_size: expected an integer, found "many"`.
/// - Scalars decode to `String`, `Bool` (`true`/`false`/`yes`/`no`, any case), integers
///   (`_` separators allowed), `Double`/`Float`, `ConfigDuration`, `RetainPolicy`,
///   `ConfigNode` (the raw subtree, unchecked), and `String`-backed `CaseIterable`
///   enums (the text must equal a case's raw value; errors list the cases). A key whose value is empty (`journal:`) decodes as
///   `nil` for optionals and as an empty mapping or list for structs and arrays.
/// - A type may throw `DecodingError` (e.g. `DecodingError.dataCorruptedError(forKey:in:debugDescription:)`)
///   from its `init(from:)`: it is reported as a `ConfigError` at that key's place,
///   with the description as the message.
public enum ConfigDecoder {
    /// Decodes `type` from `node`; `path` is the key path of `node` in the file
    /// (`sinks.local`), the prefix of every path in errors. Throws only `ConfigError`.
    public static func decode<T: Decodable>(_ type: T.Type, from node: ConfigNode, path: String = "") throws(ConfigError) -> T {
        let context = ConfigDecodingContext(root: node, rootPath: path)
        do {
            let value = try context.decodeValue(T.self, node: node, codingPath: [])
            try context.checkUnknownKeys()
            return value
        } catch let error as ConfigError {
            throw error
        } catch let error as DecodingError {
            throw context.configError(from: error)
        } catch {
            throw ConfigError(at: node.location, path: path, message: "\(error)")
        }
    }
}

extension Decoder {
    /// The node being decoded, when this decoder is a `ConfigDecoder`'s: plugins use its
    /// `location` to report problems they find after decoding.
    public var configNode: ConfigNode? { (self as? ConfigNodeDecoder)?.node }

    /// The key path being decoded (`sinks.local.users.alice`), when this decoder is a `ConfigDecoder`'s.
    public var configPath: String? {
        (self as? ConfigNodeDecoder).map { ConfigKeyPath.string(root: $0.context.rootPath, codingPath: $0.codingPath) }
    }
}
