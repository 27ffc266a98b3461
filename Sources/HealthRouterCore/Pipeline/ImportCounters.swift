/// What an import has read so far.
public struct ImportCounters: Sendable {
    public var appended = AppendResult()
    public var skipped: [String: Int] = [:]
    /// The first location where each skip reason was seen.
    public var skippedExamples: [String: String] = [:]
    public var bytes: Int64 = 0
    public var totalBytes: Int64?

    public init() {}

    /// Items read: new, duplicates, changed and tombstones.
    public var records: Int { appended.newCount + appended.duplicateCount + appended.changedCount }
}
