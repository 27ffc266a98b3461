import HealthRouterCore

/// The table `migrate --verify` prints: per type, count and checksum on both sides.
enum VerifyTable {
    /// The table and the number of types that differ.
    static func render(from: (name: String, sums: SampleChecksum), to: (name: String, sums: SampleChecksum)) -> (String, Int) {
        let types = Set(from.sums.byType.keys).union(to.sums.byType.keys).sorted {
            PulsoJSONEncoder.typeKey($0) < PulsoJSONEncoder.typeKey($1)
        }
        var rows = [["type", "\(from.name) count", "\(to.name) count", "\(from.name) checksum", "\(to.name) checksum", ""]]
        var differences = 0
        for type in types {
            let a = from.sums.byType[type], b = to.sums.byType[type]
            let same = a == b
            if !same { differences += 1 }
            rows.append([PulsoJSONEncoder.typeKey(type),
                         a.map { NumberText.grouped($0.count) } ?? "-", b.map { NumberText.grouped($0.count) } ?? "-",
                         a.map { hex($0.checksum) } ?? "-", b.map { hex($0.checksum) } ?? "-",
                         same ? "ok" : "DIFFERENT"])
        }
        return (Table.render(rows), differences)
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return "h" + String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }
}
