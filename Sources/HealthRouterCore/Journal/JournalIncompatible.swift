/// The journal file was written with a table layout this version cannot use, or is not a
/// journal at all (another SQLite database under its name).
public struct JournalIncompatible: Error, CustomStringConvertible {
    public var path: String
    /// The layout version the file records (nil: from before layouts were versioned).
    public var found: Int64?
    /// The tables of a database that is not a journal (empty for a journal of another layout).
    public var otherTables: [String] = []

    public var description: String {
        if !otherTables.isEmpty {
            let shown = otherTables.prefix(4).joined(separator: ", ") + (otherTables.count > 4 ? ", …" : "")
            return "\(path) is not a healthrouter journal: it is another SQLite database (its tables: \(shown)), "
                + "a store or a backup copied over it? Put the journal back, or move this file away to start a new "
                + "journal: the sinks keep their rows, and every sink is delivered again from the new journal"
        }
        if let found, found > Journal.schemaVersion {
            return "\(path) was written by a newer healthrouter (journal layout \(found); this one reads layouts up to "
                + "\(Journal.schemaVersion)): run the newer version, or restore the state directory's backup from before it "
                + "(moving the file away starts a new journal, and every sink is delivered again)"
        }
        return "\(path) was written by an incompatible healthrouter (journal layout \(found.map(String.init) ?? "unversioned"), "
            + "this version uses \(Journal.schemaVersion)); move the file away to start a new journal: "
            + "the sinks keep their rows, and every sink is delivered again from the new journal"
    }
}
