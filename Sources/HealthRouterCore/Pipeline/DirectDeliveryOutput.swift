/// The `SourceOutput` of a file read for one sink alone (`backfill --from PATH`): numbers the
/// items it receives 1, 2, 3, … (the position a resumed run counts up to again) and hands them
/// to a `DirectDelivery`, without the journal. Samples the journal (when there is one) records
/// as deleted since, or holds in a later version (`Journal.isEarlierVersion`), are not delivered:
/// they are skipped, as an import of the file adds nothing for them either. An export's samples get the ids an import gives them (`FileTwinNamer`).
/// A sample whose reading the journal holds under another id (an import takes it for an alias of
/// that id: a Pulso push's HealthKit UUID, an export's fingerprint id) is delivered as the journal
/// holds it, under that id (`Journal.sameReadingUnderAnotherId`), not as a second row of the reading.
public final class DirectDeliveryOutput: SourceOutput {
    private let delivery: DirectDelivery
    private let sourceName: String
    /// The position of the last item received (`startingAfter` before the first).
    public private(set) var position: Int64
    public private(set) var skipped: [String: Int] = [:]
    public private(set) var skippedExamples: [String: String] = [:]
    public private(set) var bytes: Int64 = 0
    public private(set) var totalBytes: Int64?
    /// Samples delivered under the id the journal holds their reading by, not the file's.
    public private(set) var underJournalIds = 0

    private let journal: Journal?
    /// For a source that keeps twins apart (an export).
    private var namer: FileTwinNamer?

    /// `startingAfter`: the position the items are numbered on from (the last of the file read
    /// before, when one run reads several).
    public init(delivery: DirectDelivery, sourceName: String, journal: Journal? = nil, keepsTwinsApart: Bool = false,
                startingAfter: Int64 = 0) {
        self.delivery = delivery
        position = startingAfter
        self.sourceName = sourceName
        self.journal = journal
        namer = keepsTwinsApart ? FileTwinNamer() : nil
        // Checked again when its batch is written, and after: a tombstone may come meanwhile (a
        // daemon beside the backfill taking a push), and the sample is then not written back.
        // A journal that never deleted an id is asked nothing more.
        if let journal {
            delivery.deletedAmong = { entries in
                guard try journal.hasDeletedIds() else { return [] }
                var deleted = Set<Int64>()
                for entry in entries {
                    if case .sample(let sample) = entry.item, try journal.isDeleted(sample) { deleted.insert(entry.sequence) }
                }
                return deleted
            }
            delivery.onLeftOut = { [weak self] _ in self?.skipped(Self.deletedReason, location: nil) }
        }
    }

    /// Why a sample the journal recorded as deleted is not delivered.
    public static let deletedReason = "sample deleted since (a tombstone in the journal): not written back"
    /// Why a sample the journal holds in a later version is not delivered.
    public static let earlierVersionReason = "an earlier version of a sample the journal holds in a later one: not written back"

    public func emit(_ items: [HealthItem]) throws {
        // Asked again each call until it holds one: a daemon beside the backfill may take a push meanwhile.
        if let journal, !holdsOwnIds { holdsOwnIds = try journal.holdsSamplesWithTheirOwnIds() }
        for var item in items {
            position += 1
            item.assignFingerprintIdIfMissing()
            if namer != nil, case .sample(var sample) = item {
                // A copy of a sample the file held already (a correlation member's) is not written again.
                guard namer!.name(&sample) else { continue }
                item = .sample(sample)
            }
            if let journal, case .sample(let sample) = item, try journal.isDeleted(sample) {
                skipped(Self.deletedReason, location: nil)
                continue
            }
            // Under the id the journal holds its reading by: an import takes it for that one (a
            // duplicate, whatever version it brings), so no earlier version of it is asked for.
            var held: Sample?
            if let journal, case .sample(let sample) = item {
                held = try journal.sameReadingUnderAnotherId(sample, lookingUpFingerprints: holdsOwnIds)
            }
            if let journal, let held {
                if try journal.isDeleted(held) {
                    skipped(Self.deletedReason, location: nil)
                    continue
                }
                item = .sample(held)
            } else if let journal, case .sample(let sample) = item,
                      try journal.isEarlierVersion(sample, fromOlderInput: isOlderInput) {
                skipped(Self.earlierVersionReason, location: nil)
                continue
            }
            if try delivery.accept(JournalEntry(sequence: position, source: sourceName, item: item, isFromJournal: false)),
               held != nil {
                underJournalIds += 1
            }
        }
    }

    /// Whether the journal holds a sample that brought its own id (`Journal.holdsSamplesWithTheirOwnIds`).
    private var holdsOwnIds = false

    public func skipped(_ reason: String, location: String?) {
        skipped[reason, default: 0] += 1
        if skippedExamples[reason] == nil, let location { skippedExamples[reason] = location }
    }

    /// Whether the file was written before an input the journal took (an older export).
    private var isOlderInput = false

    public func inputWritten(at date: Timestamp, userId: String?) {
        isOlderInput = (try? journal?.isOlderInput(date, userId: userId)) == true
    }

    public func progress(bytes: Int64, total: Int64?) {
        self.bytes = bytes
        totalBytes = total
    }
}
