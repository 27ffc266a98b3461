/// A finite source (a file): it reads everything, emits it, and returns.
///
/// Contract: an instance reads one input once, on the thread of the command that made it
/// (an import's, a backfill's); it is not used again after `read(into:)` returned or threw.
/// `checkInput()` may be called first, before the journal is opened; then `read(into:)` is
/// called once. The three flags below tell the journal how to take the input's versions of a
/// sample; they are read before `read(into:)`.
public protocol FiniteSource {
    /// Throws the `SourceError` `read(into:)` would throw at once for an input that is plainly not
    /// what this source reads (empty, another format), looking only at its beginning (bounded, not
    /// the whole input) and writing nothing: a wrong input then leaves no journal or store behind.
    /// Default: no check.
    func checkInput() throws

    /// Reads the input to its end, emitting every item into `output` and reporting what it skips
    /// (`SourceOutput.skipped`) and how far it got (`SourceOutput.progress`). Throws `SourceError`
    /// naming the file, the place in it and what to do when the input is unusable; what it
    /// emitted before stays in the journal (a rerun reads it again as duplicates).
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
