/// Key paths as error messages print them: `sinks.local.path`, `routes[0].to[1]`.
enum ConfigKeyPath {
    /// `path.key`, or `key` when `path` is empty.
    static func appending(_ key: String, to path: String) -> String {
        path.isEmpty ? key : path + "." + key
    }

    /// `path[index]`.
    static func appending(index: Int, to path: String) -> String {
        path + "[\(index)]"
    }

    /// The path of a decoder's coding path below `root`.
    static func string(root: String, codingPath: [any CodingKey]) -> String {
        var path = root
        for key in codingPath {
            if let index = key as? ConfigIndexKey {
                path = appending(index: index.index, to: path)
            } else {
                path = appending(key.stringValue, to: path)
            }
        }
        return path
    }
}

/// The coding key of a sequence item.
struct ConfigIndexKey: CodingKey {
    let index: Int
    init(_ index: Int) { self.index = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.index = intValue }
    var stringValue: String { "[\(index)]" }
    var intValue: Int? { index }
}
