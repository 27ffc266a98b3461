/// The journal file was written with a table layout this version cannot use.
public struct JournalIncompatible: Error, CustomStringConvertible {
    public var path: String
    /// The layout version the file records (nil: from before layouts were versioned).
    public var found: Int64?

    public var description: String {
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
