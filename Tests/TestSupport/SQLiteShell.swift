import Foundation

/// The `sqlite3` command-line shell, as a user queries a store: one statement on a database file,
/// its output (standard output and error together) trimmed, and its exit status.
public enum SQLiteShell {
    public static let path = "/usr/bin/sqlite3"

    public static func run(_ database: String, _ statement: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [database, statement]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
