import TestSupport
import Foundation
import HealthRouterCore

/// Content checksums of what an import left behind, for comparing two runs.
enum StoreChecksum {
    /// Every row of every table of the SQLite store, in a stable order, columns named in
    /// `ignoring` left out (times of writing differ between runs).
    static func sqlite(_ path: String, ignoring: Set<String> = []) throws -> [String: String] {
        let database = try SQLiteDatabase(path: path, readOnly: true)
        let tables = try database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        var names: [String] = []
        while try tables.step() { names.append(tables.string(0) ?? "") }
        var out: [String: String] = [:]
        for table in names {
            let columns = try database.prepare("SELECT name FROM pragma_table_info('\(table)') ORDER BY cid")
            var kept: [String] = []
            while try columns.step() {
                let name = columns.string(0) ?? ""
                if !ignoring.contains(name) { kept.append("quote(\"\(name)\")") }
            }
            let rows = try database.prepare("SELECT \(kept.joined(separator: " || '|' || ")) AS row FROM \"\(table)\" ORDER BY row")
            var hasher = StableHasher()
            var count = 0
            while try rows.step() {
                hasher.add(rows.string(0) ?? "")
                count += 1
            }
            out[table] = "\(count) rows \(hasher.hex)"
        }
        return out
    }

    /// Every NDJSON line of every file, `receivedAt` left out, keys sorted, lines sorted.
    static func ndjson(_ directory: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() where file.hasSuffix(".ndjson") {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            var lines: [String] = []
            for line in text.split(separator: "\n") {
                var object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
                object.removeValue(forKey: "receivedAt")
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                lines.append(String(decoding: data, as: UTF8.self))
            }
            var hasher = StableHasher()
            for line in lines.sorted() { hasher.add(line) }
            out[file] = "\(lines.count) lines \(hasher.hex)"
        }
        return out
    }

    /// The ids that occur on more than one line of the NDJSON files (should be none).
    static func duplicatedIds(_ directory: String) throws -> [String] {
        var seen: [String: Int] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file.hasSuffix(".ndjson") && file != "_deleted.ndjson" {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
                if let id = object["uuid"] as? String { seen[id, default: 0] += 1 }
            }
        }
        return seen.filter { $0.value > 1 }.map(\.key)
    }
}

/// FNV-1a over strings: stable across processes.
struct StableHasher {
    private var state: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add(_ text: String) {
        for byte in text.utf8 { state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        state = (state ^ 0x0A) &* 0x0000_0100_0000_01b3
    }
    var hex: String { String(state, radix: 16) }
}
