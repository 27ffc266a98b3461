/// One metadata key and value. Metadata keeps its producer's order, so it is a list.
public struct MetadataEntry: Sendable, Hashable {
    public var key: String
    public var value: MetadataValue

    public init(_ key: String, _ value: MetadataValue) {
        self.key = key
        self.value = value
    }
}

extension Array where Element == MetadataEntry {
    /// The first value stored under `key`.
    public subscript(key key: String) -> MetadataValue? {
        first { $0.key == key }?.value
    }

    /// Adds `entry`, or, when an entry has its key already, gives that one its value (where it
    /// is); false then, so that the caller can say a key came twice.
    @discardableResult
    public mutating func set(_ entry: MetadataEntry) -> Bool {
        guard let index = firstIndex(where: { $0.key == entry.key }) else {
            append(entry)
            return true
        }
        self[index].value = entry.value
        return false
    }

    /// What `set(_:limit:)` did with an entry.
    public enum SetOutcome: Sendable {
        case added, replaced
        /// A new key past the limit: left out.
        case refused
    }

    /// `set`, for a producer's list that may be hostile (an element with 300,000 entries made
    /// `set`'s search for the key quadratic): once the list holds `limit` entries, an entry of
    /// a new key is refused.
    public mutating func set(_ entry: MetadataEntry, limit: Int) -> SetOutcome {
        if let index = firstIndex(where: { $0.key == entry.key }) {
            self[index].value = entry.value
            return .replaced
        }
        guard count < limit else { return .refused }
        append(entry)
        return .added
    }

    /// The entries of a JSON object as a dictionary keeps them: a key given twice once, with
    /// its last value; sorted by key.
    public func lastOfEachKeySorted() -> [MetadataEntry] {
        guard count > 1 else { return self }
        return lastOfEachKey().sorted { $0.key < $1.key }
    }

    /// The entries with a key given twice kept once, with its last value, where that stands.
    public func lastOfEachKey() -> [MetadataEntry] {
        guard count > 1 else { return self }
        var last: [String: Int] = [:]
        for (index, entry) in enumerated() { last[entry.key] = index }
        return last.count == count ? self : enumerated().filter { last[$0.element.key] == $0.offset }.map(\.element)
    }
}
