import HealthRouterCore

/// Parses one export.xml byte stream fed in chunks: repairs the bytes
/// (`ExportByteFilter`), runs libxml2 (`SAXPushParser`) into an `ExportElementHandler`,
/// and emits the items in batches of about `batchSize`.
///
/// Errors become `SourceError`s that name `input` and `entry` (for a zip) and the line.
/// Items parsed before an error are emitted before it is thrown.
final class ExportDocumentParser {
    static let batchSize = 5000

    private let input: String
    private let entry: String?
    private let output: SourceOutput
    private let handler: ExportElementHandler
    private let parser: SAXPushParser
    private var filter = ExportByteFilter()
    private var emittedItems = 0

    init(input: String, entry: String?, userId: String?, zoneOffsets: RecordedZoneOffsets, routes: RouteFileResolver,
         resources: ClinicalResourceResolver, output: SourceOutput, logger: Logger) {
        self.input = input
        self.entry = entry
        self.output = output
        handler = ExportElementHandler(userId: userId, zoneOffsets: zoneOffsets, routes: routes, resources: resources,
                                       output: output, logger: logger)
        parser = SAXPushParser(handler: handler, documentName: entry ?? input)
    }

    /// Parses `chunk` (modified in place by the filter); `isLast` ends the document.
    func feed(_ chunk: UnsafeMutableRawBufferPointer, isLast: Bool) throws {
        var failure: SAXParseFailure?
        filter.filter(chunk, isLast: isLast) { bytes in
            if failure == nil { failure = parser.parse(bytes) }
        }
        if isLast && failure == nil {
            failure = parser.parse(UnsafeRawBufferPointer(start: nil, count: 0), final: true)
            if failure == nil && !handler.sawRoot {
                failure = SAXParseFailure(line: parser.lineNumber, message: "the document has no <HealthData> element",
                                          raisedByHandler: true, atEnd: true)
            }
        }
        if var failure {
            failure.line = filter.fileLine(failure.line)
            reportHeldCorrelations(location: (entry.map { "entry \($0), " } ?? "") + "line \(failure.line)")
            try emitPending()
            throw sourceError(failure)
        }
        if isLast || handler.pending.count >= Self.batchSize { try emitPending() }
    }

    /// The bytes stopped coming (the zip could not be read further): emits the items parsed so
    /// far and returns the error to throw, saying how many were kept.
    func readFailed(_ error: any Error) -> any Error {
        reportHeldCorrelations(location: entry.map { "entry \($0)" })
        do { try emitPending() } catch { return error }
        guard emittedItems > 0, var failure = error as? SourceError else { return error }
        failure.problem += keptNote
        return failure
    }

    /// Counts the correlations of the time the document failed at, which are not emitted: the
    /// whole file decides their members together with the ones after the cut.
    private func reportHeldCorrelations(location: String?) {
        for _ in 0..<handler.heldCorrelationCount {
            output.skipped("Correlation of the time the file ends at, left for the whole file (it decides its members with "
                               + "the correlations of that time after the cut)", location: location)
        }
    }

    /// ` (the 120 items read before this point were kept)`: the end of the problem of an error after
    /// items were emitted (the fact, said once: the hint after it is what to do).
    private var keptNote: String {
        " (the \(NumberText.counted(emittedItems, "item")) read before this point \(emittedItems == 1 ? "was" : "were") kept)"
    }

    /// For the import log: the export's locale and whether its DTD was removed (`fields`), the
    /// items emitted so far by kind name and the correlation members dropped (`numbers`).
    var summary: (fields: [(String, String)], numbers: [(String, LogNumber)]) {
        var fields: [(String, String)] = []
        if let locale = handler.locale { fields.append(("locale", locale)) }
        fields.append(("dtd_removed", String(filter.removedDoctype)))
        var numbers: [(String, LogNumber)] = []
        for kind in SampleKind.allCases where handler.countsByKind[Int(kind.rawValue)] > 0 {
            numbers.append((kind.name, LogNumber(handler.countsByKind[Int(kind.rawValue)])))
        }
        if handler.duplicateMembersDropped > 0 {
            numbers.append(("duplicate_correlation_members", LogNumber(handler.duplicateMembersDropped)))
        }
        return (fields, numbers)
    }

    private func emitPending() throws {
        guard !handler.pending.isEmpty else { return }
        emittedItems += handler.pending.count
        // Handed over whole: the output takes the array instead of copying its items.
        try output.emit(taking: &handler.pending)
        handler.pending.reserveCapacity(Self.batchSize + Self.batchSize / 8)
    }

    private func sourceError(_ failure: SAXParseFailure) -> SourceError {
        let location = (entry.map { "entry \($0), " } ?? "") + "line \(failure.line)"
        let kept = emittedItems > 0 ? keptNote : ""
        if failure.raisedByHandler {
            return SourceError(input: input, location: location, problem: failure.message + kept,
                               hint: "give the export.zip the Health app wrote, or the export.xml inside it")
        }
        if failure.atEnd {
            return SourceError(input: input, location: location,
                               problem: "the export ends in the middle of the document (\(failure.message)); it is truncated\(kept)",
                               hint: "copy the file again in full, or export again from the Health app (Profile → Export All Health Data)")
        }
        return SourceError(input: input, location: location, problem: "the XML is not well-formed: \(failure.message)\(kept)",
                           hint: "the export is damaged: export again from the Health app (Profile → Export All Health Data); if it happens again, report the line")
    }
}
