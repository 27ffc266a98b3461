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

/// A finite source (a file): it reads everything, emits it, and returns.
///
/// Contract: `checkInput()` may be called first, before the journal is opened; then
/// `read(into:)` is called once. It returns when the input has been read to
/// its end and every item was emitted; it throws `SourceError` naming the file and
/// what to do when the input is unusable. Items emitted before a throw stay in the
/// journal.
public protocol FiniteSource {
    /// Throws the `SourceError` `read(into:)` would throw at once for an input that is plainly not
    /// what this source reads (empty, another format), looking only at its beginning (bounded, not
    /// the whole input) and writing nothing: a wrong input then leaves no journal or store behind.
    /// Default: no check.
    func checkInput() throws

    func read(into output: SourceOutput) throws

    /// Whether two samples of one fingerprint id in one input are two samples (an export's
    /// records: two foods of equal energy at one meal; `Journal.twinsAfter`) rather than two
    /// versions of one sample (a replay's lines carry their ids: the later line of an id is a
    /// change, as a journal dump lists every version of a changed sample). Default: false.
    var keepsTwinsApart: Bool { get }

    /// Whether the input's dates carry the offset of the day it was written rather than each
    /// sample's own (an Apple export stamps every date with the exporting phone's offset): a
    /// changed version of a journaled sample then keeps the offsets its instants were first
    /// journaled with (`Journal.keepsFirstOffsets`). Default: false.
    var datesCarryTheExportersOffset: Bool { get }

    /// Whether the input lists the versions of a sample in the order they came, the later line of an
    /// id its later version (a replay: a journal dump, an ndjson folder): a version the journal has
    /// replaced since is then an earlier one, not taken again (`Journal.refusesEarlierVersions`).
    /// Default: false (an export holds one version of each sample, and which export is the later
    /// one its samples do not say).
    var listsVersionsInOrder: Bool { get }
}

extension FiniteSource {
    public func checkInput() throws {}
    public var keepsTwinsApart: Bool { false }
    public var datesCarryTheExportersOffset: Bool { false }
    public var listsVersionsInOrder: Bool { false }
}

/// A source failure a person can act on: it names the input and says what to do.
public struct SourceError: Error, Sendable, CustomStringConvertible {
    /// The file or endpoint concerned.
    public var input: String
    /// Where in it, when known (`line 41`, `entry apple_health_export/export.xml`).
    public var location: String?
    /// What is wrong.
    public var problem: String
    /// What the user can do about it.
    public var hint: String?
    /// Whether the input could not be opened or read at all (missing, no permission), rather
    /// than read and found wrong: a command's exit code tells the two apart.
    public var cannotRead: Bool
    /// Whether the state directory refused a write (a full disk, a temporary file that cannot be
    /// created), rather than the input being wrong: an import exits 73, as when the journal does.
    public var stateNotWritable: Bool

    public init(input: String, location: String? = nil, problem: String, hint: String? = nil, cannotRead: Bool = false,
                stateNotWritable: Bool = false) {
        self.input = input
        self.location = location
        self.problem = problem
        self.hint = hint
        self.cannotRead = cannotRead
        self.stateNotWritable = stateNotWritable
    }

    public var description: String {
        var text = input
        if let location { text += ", \(location)" }
        text += ": \(problem)"
        if let hint { text += "\n  hint: \(hint)" }
        return text
    }
}
