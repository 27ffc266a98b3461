/// Where a source sends what it reads, and reports what it could not use.
///
/// Contract: `emit` returns only after the items are durable in the journal
/// (or throws, and then the source must stop). Sources batch their items
/// (a few thousand at a time); `emit` may be called from the source's own thread.
///
/// Samples are emitted normalised (`SampleNormalizer`). A source may leave the id of a sample
/// empty when it has no use for the id itself: the output gives it its fingerprint id
/// (`Fingerprint.id(of:)`), the same the normaliser would have, on the output's own thread
/// where it has one (the export parser leaves the hashing to the journal's, beside its parsing).
public protocol SourceOutput: AnyObject {
    /// Appends `items` to the journal durably.
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
