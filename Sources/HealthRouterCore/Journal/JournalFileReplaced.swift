/// The journal's file was deleted or replaced while the daemon had it open.
public struct JournalFileReplaced: Error, CustomStringConvertible {
    public let path: String

    public var description: String {
        "\(path) was deleted or replaced while healthrouter ran: nothing more is written to the file it had open "
            + "(it could not be opened again); restart healthrouter, which starts a journal in its place "
            + "(re-import your exports, or backfill from a store, for what it held)"
    }
}
