import Foundation

/// The SQL a README shows, for tests that run it as printed.
public enum ReadmeSQL {
    /// The statements of every ```sql block in `file` (a path from the repository's root), comment
    /// lines dropped; with `section`, only the blocks under the `## section` heading.
    public static func statements(in file: String, section: String? = nil) throws -> [String] {
        var text = try String(contentsOfFile: CommandRunner.repository + "/" + file, encoding: .utf8)
        if let section {
            let parts = text.components(separatedBy: "\n## \(section)\n")
            guard parts.count == 2 else { return [] }
            text = parts[1].components(separatedBy: "\n## ").first ?? ""
        }
        var statements: [String] = []
        for block in text.components(separatedBy: "```sql\n").dropFirst() {
            let body = block.components(separatedBy: "```").first ?? ""
            let code = body.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("--") }
                .joined(separator: "\n")
            statements += code.components(separatedBy: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                .filter { !$0.isEmpty }
        }
        return statements
    }
}
