import Foundation

/// Reads what the index needs from one stored line: a sample's id and content hash, or a
/// tombstone's ids. Lines this sink wrote (`{"uuid":"…",…,"receivedAt":"…"}`) take a
/// byte-level path; anything else goes through `JSONSerialization`.
enum NDJSONLineParser {
    enum Line: Equatable {
        case sample(id: String, contentHash: Int64)
        case tombstone(ids: [String])
    }

    private static let uuidPrefix = Array(#"{"uuid":""#.utf8)
    private static let receivedAtKey = Array(#","receivedAt":"#.utf8)

    /// The line's meaning; nil when it is not a JSON object with a string `uuid` or a `deleted` key.
    static func parse(_ line: ArraySlice<UInt8>) -> Line? {
        if line.starts(with: uuidPrefix), let id = plainString(in: line, from: line.startIndex + uuidPrefix.count) {
            return .sample(id: id, contentHash: contentHash(of: line))
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { return nil }
        if let deleted = object["deleted"] {
            // A line with `deleted` is a tombstone even when it has a uuid; a non-list deletes nothing.
            return .tombstone(ids: (deleted as? [Any])?.compactMap { $0 as? String } ?? [])
        }
        guard let id = object["uuid"] as? String else { return nil }
        return .sample(id: id, contentHash: contentHash(of: line))
    }

    /// The hash of the line without its `receivedAt` (the last field, as this sink and
    /// Pulso's server write it), as the sink computed it when it wrote the line.
    static func contentHash(of line: ArraySlice<UInt8>) -> Int64 {
        var end = line.endIndex
        while end > line.startIndex, line[end - 1] == 0x20 || line[end - 1] == 0x0D { end -= 1 }
        var cut = end > line.startIndex ? end - 1 : end  // without the closing brace
        if let found = lastIndex(of: receivedAtKey, in: line[..<end]) { cut = found }
        return line[line.startIndex..<cut].withUnsafeBytes { NDJSONLineHash.hash($0) }
    }

    /// The JSON string starting at `start` (after its opening quote), when it has no escapes.
    private static func plainString(in line: ArraySlice<UInt8>, from start: Int) -> String? {
        var index = start
        while index < line.endIndex {
            switch line[index] {
            case UInt8(ascii: "\""): return String(decoding: line[start..<index], as: UTF8.self)
            case UInt8(ascii: "\\"): return nil
            default: index += 1
            }
        }
        return nil
    }

    private static func lastIndex(of pattern: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        var index = bytes.endIndex - pattern.count
        while index >= bytes.startIndex {
            if bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
            index -= 1
        }
        return nil
    }
}
