/// Plain-text tables with aligned columns, numbers right-aligned.
enum Table {
    static func render(_ rows: [[String]]) -> String {
        guard let header = rows.first else { return "" }
        var widths = Array(repeating: 0, count: header.count)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        func isNumeric(_ s: String) -> Bool { !s.isEmpty && s.allSatisfy { $0.isNumber || $0 == "," || $0 == "." || $0 == "-" } && s != "-" }
        return rows.map { row in
            row.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: max(0, widths[i] - cell.count))
                return isNumeric(cell) ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }.joined(separator: "\n")
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
