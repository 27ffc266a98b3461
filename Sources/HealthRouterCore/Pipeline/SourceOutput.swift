/// Where a source sends what it reads, and reports what it could not use.
///
/// Contract:
/// - Every method is called from one thread at a time: the source's own (a finite source's
///   reading thread, a push request's handler). `progress` reports only grow.
/// - When `emit` returns, the items are durable in the journal, or, for an output that buffers
///   (a file's import: `JournalSourceOutput` with a `bufferLimit`, whose items are read again
///   after a crash), they are durable once its `finish()` returned. A throw means the journal
///   refused them or an earlier batch of a buffering output; the source must stop then.
/// - Sources hand over what they have read in batches (a few thousand items at a time, or one
///   push's items); the output decides how many go into one journal transaction.
///
/// Samples are emitted normalised (`SampleNormalizer`). A source may leave the id of a sample
/// empty when it has no use for the id itself: the output gives it its fingerprint id
/// (`Fingerprint.id(of:)`), the same the normaliser would have, on the output's own thread
/// where it has one (the export parser leaves the hashing to the journal's, beside its parsing).
public protocol SourceOutput: AnyObject {
    /// Appends `items` to the journal (durably by the time the contract above says).
    func emit(_ items: [HealthItem]) throws
    /// Like `emit(_:)`, and leaves `items` empty: the output may take the array as it is instead
    /// of copying its items (a source that gathers batches in one array calls this one).
    func emit(taking items: inout [HealthItem]) throws
    /// Counts an element the source could not turn into an item, with the reason
    /// (`"Record without startDate"`); the import summary lists each reason with its count.
    func skipped(_ reason: String, location: String?)
    /// Reports progress of a finite source: bytes consumed of `total` (nil: unknown).
    func progress(bytes: Int64, total: Int64?)
    /// Tells when the input was written (an export's `ExportDate`) and whose it is (the user its
    /// samples get), before the source emits any item: a sample an older input of the same user
    /// holds in another version than the journal's is left out (`Journal.inputIsOlder`). Default:
    /// nothing.
    func inputWritten(at date: Timestamp, userId: String?)
}

extension SourceOutput {
    public func inputWritten(at date: Timestamp, userId: String?) {}

    public func emit(taking items: inout [HealthItem]) throws {
        try emit(items)
        items.removeAll(keepingCapacity: true)
    }
}
