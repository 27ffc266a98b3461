/// Small helpers for writing YAML text that the config parser reads back.
enum YAMLText {
    /// `text` as a single-quoted YAML scalar: no escapes but `''` for a quote.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
