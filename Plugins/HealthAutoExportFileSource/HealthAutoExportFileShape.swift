import Foundation

/// Whether a file looks like one Health Auto Export JSON document, judged by its first bytes
/// (bounded: a file may be 64 MiB), without parsing it whole: one JSON object whose `data`
/// object holds one of Health Auto Export's sections (`metrics`, `workouts`, `stateOfMind`, …),
/// or with `metrics` or `workouts` at its top level (both shapes `/hae` reads,
/// `HealthAutoExportParser.sections`). A second value after the object (NDJSON) is not one.
enum HealthAutoExportFileShape {
    /// The sections Health Auto Export writes in `data` (health-auto-export.md §3.2).
    static let sections: Set<String> = ["metrics", "workouts", "stateOfMind", "medications", "symptoms", "cycleTracking",
                                        "ecg", "heartRateNotifications"]
    /// How many bytes of a file are looked at: HAE writes `{"data":{"metrics":[` at the start.
    static let bytesLookedAt = 1 << 20

    static func recognizes(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: bytesLookedAt) else { return false }
        return recognizes(head: Array(head))
    }

    /// `head`: the file's first bytes (up to `bytesLookedAt`).
    static func recognizes(head: [UInt8]) -> Bool {
        var index = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        while index < head.count, isSpace(head[index]) { index += 1 }
        guard index < head.count, head[index] == UInt8(ascii: "{") else { return false }
        var topKeys = Set<String>(), dataKeys = Set<String>()
        var depth = 0, inString = false, escaped = false
        var string: [UInt8] = []
        var lastString: String?
        // The top-level key whose value is being read, and whether `data`'s value is an object.
        var topKey: String?, dataIsObject = false, awaitingValue = false
        var closedAt: Int?
        scan: while index < head.count {
            let byte = head[index]
            index += 1
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    lastString = String(decoding: string, as: UTF8.self)
                    continue
                }
                string.append(byte)
                continue
            }
            if isSpace(byte) { continue }
            if awaitingValue {
                // The first byte of a top-level key's value.
                awaitingValue = false
                if topKey == "data" && byte == UInt8(ascii: "{") { dataIsObject = true }
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                string.removeAll(keepingCapacity: true)
            case UInt8(ascii: ":"):
                if depth == 1, let key = lastString {
                    topKeys.insert(key)
                    topKey = key
                    awaitingValue = true
                } else if depth == 2, topKey == "data", dataIsObject, let key = lastString {
                    dataKeys.insert(key)
                }
                lastString = nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                lastString = nil
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                lastString = nil
                if depth == 0 {
                    closedAt = index
                    break scan
                }
            default:
                lastString = nil
            }
        }
        // Another value after the object: lines of NDJSON, not one document. (A file cut short
        // before its object closes is HAE's all the same when its start says so: read, it is
        // refused, saying where it ends.)
        if let closedAt, head[closedAt...].contains(where: { !isSpace($0) }) { return false }
        if topKeys.contains("metrics") || topKeys.contains("workouts") { return true }
        return dataIsObject && !dataKeys.isDisjoint(with: sections)
    }
}
