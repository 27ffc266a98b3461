import HealthRouterCore

/// Turns the SAX events of an export.xml into `HealthItem`s (see README.md for where
/// each element lands). Items collect in `pending`; the caller takes them in batches
/// between chunks. Anything that cannot become an item is reported to
/// `SourceOutput.skipped` with its line, never dropped silently.
final class ExportElementHandler: SAXHandler {
    private let reader = ExportValueReader()
    private let userId: String?
    private let routes: RouteFileResolver
    private let resources: ClinicalResourceResolver
    private let output: SourceOutput
    private let logger: Logger

    /// Items parsed and not yet taken by the caller.
    var pending: [HealthItem] = []
    /// Items produced so far, by `SampleKind.rawValue`.
    private(set) var countsByKind = [Int](repeating: 0, count: 8)
    /// Offsets of the recorded zone for samples with `HKTimeZone`, and of the source's `time_zone` for
    /// the others when it has one (the export's are the day's of the export).
    private var zoneOffsets: RecordedZoneOffsets
    private(set) var sawRoot = false
    private(set) var exportDate: Timestamp?
    /// Whether the output heard when the export was written (`inputWritten`).
    private var toldInputDate = false
    private(set) var locale: String?

    /// Names of the open elements, outermost first.
    private var open: [XMLName] = []
    /// While set, elements nested at or below this depth are ignored (a reported subtree).
    private var ignoredDepth: Int?
    /// An unknown element's skip, reported when it ends: a file cut inside its tag (`<M` at the
    /// end of a truncated export) is said to be truncated, not to hold an unknown element.
    private var unknownElementSkip: (reason: String, line: Int)?

    private var record: RecordDraft?
    private var correlation: CorrelationDraft?
    /// Correlations read, of one start, not emitted yet (`finishCorrelation`).
    private var heldCorrelations: [CorrelationDraft] = []
    /// How many correlations are held: those a document that fails leaves out.
    var heldCorrelationCount: Int { heldCorrelations.count }
    private var workout: WorkoutBuilder?
    private var generic = GenericRecordBuilder()
    private var deduplicator = CorrelationMemberDeduplicator()

    /// Per interned type: its kind and whether it can be a correlation member.
    private var typeTraits: [TypeTraits?] = []
    private var typeTraitsGeneration = 0

    private struct TypeTraits {
        /// nil: decided by the value (a number is a quantity, a name a category).
        var kind: SampleKind?
        var canBeMember: Bool
        /// What the registry knows of the type (nil: nothing), looked up once per type.
        var registered: HealthType?
    }

    private struct RecordDraft {
        var sample: Sample
        var typeEntry: Int
        /// The generation of `typeTraits` that `typeEntry` indexes.
        var typeGeneration: Int
        var canBeMember: Bool
        /// The line of a `creationDate` kept as text in metadata: reported once the record is kept
        /// (one left out is counted once, for why).
        var creationDateLine: Int?
        var beats: [Heartbeat] = []
        /// Whether beats past `maximumBeats` were left out (reported once).
        var beatsCut = false
    }

    private struct CorrelationDraft {
        var sample: Sample
        /// Its member records, emitted with it when it ends (with their ids).
        var members: [Sample] = []
        /// Whether members past `maximumMembers` were left out (reported once).
        var membersCut = false
    }

    /// The most beats an HRV record keeps (a reading holds about a hundred), and the most members a
    /// correlation keeps (a meal's nutrients, a few dozen): a few MiB of zip holding millions of
    /// them took the memory.
    static let maximumBeats = 100_000
    static let maximumMembers = 10_000

    init(userId: String?, zoneOffsets: RecordedZoneOffsets, routes: RouteFileResolver, resources: ClinicalResourceResolver,
         output: SourceOutput, logger: Logger) {
        self.userId = userId
        self.zoneOffsets = zoneOffsets
        self.routes = routes
        self.resources = resources
        self.output = output
        self.logger = logger
        pending.reserveCapacity(6000)
    }

    /// Second copies of correlation members not emitted (see `CorrelationMemberDeduplicator`).
    var duplicateMembersDropped: Int { deduplicator.duplicatesDropped }

    // MARK: SAX events

    override func startElement(_ name: UnsafePointer<UInt8>, _ attributes: SAXAttributes) {
        let element = reader.names.name(name)
        let parent = open.last
        open.append(element)
        if ignoredDepth != nil { return }
        switch open.count {
        case 1:
            guard element == .healthData else {
                stop("this is not an Apple Health export: the document element is <\(reader.names.text(name))>, not <HealthData>")
                return
            }
            sawRoot = true
            for index in 0..<attributes.count where reader.names.name(attributes.name(index)) == .locale {
                locale = AttributeText.string(attributes.value(index))
            }
        case 2:
            startTopLevel(element, name, attributes)
        default:
            startNested(element, name, parent: parent ?? .other, attributes)
        }
    }

    override func endElement(_ name: UnsafePointer<UInt8>) {
        let depth = open.count
        let element = open.removeLast()
        if depth == 1 { releaseHeldCorrelations() }
        if let ignored = ignoredDepth {
            if depth == ignored {
                ignoredDepth = nil
                if let skip = unknownElementSkip {
                    output.skipped(skip.reason, location: "line \(skip.line)")
                    unknownElementSkip = nil
                }
            }
            return
        }
        if generic.isOpen {
            if let finished = generic.end() { finishGeneric(finished) }
            return
        }
        switch element {
        case .record where record != nil && (depth == 2 || (depth == 3 && correlation != nil)):
            finishRecord()
        case .correlation where depth == 2:
            finishCorrelation()
        case .workout where depth == 2:
            finishWorkout()
        default:
            workout?.end(element)
        }
    }

    // MARK: Top level

    private func startTopLevel(_ element: XMLName, _ name: UnsafePointer<UInt8>, _ attributes: SAXAttributes) {
        // An export without a readable ExportDate (which comes first) counts as written in 1970:
        // older than any dated export, for every one of its samples alike (its profile is at 1970).
        if element != .exportDate && !toldInputDate {
            toldInputDate = true
            output.inputWritten(at: Timestamp(epochMilliseconds: 0), userId: userId)
        }
        switch element {
        case .record:
            beginRecord(attributes)
        case .correlation:
            beginCorrelation(attributes)
        case .workout:
            workout = WorkoutBuilder(attributes, reader: reader, userId: userId, line: lineNumber) { [output] reason, location in
                output.skipped(reason, location: location)
            }
            if workout == nil { ignoreSubtree() }
        case .exportDate:
            for index in 0..<attributes.count where reader.names.name(attributes.name(index)) == .value {
                exportDate = reader.date(attributes.value(index))
            }
            if let exportDate {
                logger.info("export date \(TimestampFormatter.iso8601(exportDate))")
                output.inputWritten(at: exportDate, userId: userId)
                toldInputDate = true
            } else {
                skip("ExportDate without a valid value")
            }
            ignoreSubtree()
        default:
            generic.start(element: reader.names.text(name), attributes: reader.genericAttributes(attributes),
                          line: lineNumber)
        }
    }

    private func startNested(_ element: XMLName, _ name: UnsafePointer<UInt8>, parent: XMLName,
                             _ attributes: SAXAttributes) {
        if generic.isOpen {
            generic.start(element: reader.names.text(name), attributes: reader.genericAttributes(attributes),
                          line: lineNumber)
            return
        }
        if record != nil {
            switch (parent, element) {
            case (.record, .metadataEntry):
                guard let entry = reader.metadataEntry(attributes) else { return skip("MetadataEntry without a key") }
                if let reason = Self.addMetadata(entry, to: &record!.sample) { skip(reason) }
            case (.record, .heartRateVariabilityMetadataList):
                break
            case (.heartRateVariabilityMetadataList, .instantaneousBeatsPerMinute):
                addHeartbeat(attributes)
            default:
                ignoreUnknown(name, inside: "Record")
            }
            return
        }
        if correlation != nil {
            switch element {
            case .metadataEntry where parent == .correlation:
                guard let entry = reader.metadataEntry(attributes) else { return skip("MetadataEntry without a key") }
                if let reason = Self.addMetadata(entry, to: &correlation!.sample) { skip(reason) }
            case .record where parent == .correlation:
                beginRecord(attributes)
            default:
                ignoreUnknown(name, inside: "Correlation")
            }
            return
        }
        if let workout {
            if !workout.start(element, parent: parent, attributes, reader: reader, routes: routes, line: lineNumber) {
                ignoreUnknown(name, inside: "Workout")
            }
            return
        }
        ignoreUnknown(name, inside: "HealthData")
    }

    // MARK: Records

    private func beginRecord(_ attributes: SAXAttributes) {
        var typeEntry = -1
        var unit: String?
        var value: UnsafeBufferPointer<UInt8>?
        var sourceName = ""
        var sourceVersion: String?
        var device: String?
        var created: Timestamp?
        var start: Timestamp?
        var hasStart = false
        var end: Timestamp?
        var hasEnd = false
        var extras: [MetadataEntry] = []
        var creationDateKeptAsText = false
        for index in 0..<attributes.count {
            let bytes = attributes.value(index)
            switch reader.names.name(attributes.name(index)) {
            case .type: if bytes.count > 0 { typeEntry = reader.types.intern(bytes) }
            case .unit: unit = reader.units.string(bytes)
            case .value: value = bytes
            case .sourceName: sourceName = reader.sources.string(bytes)
            case .sourceVersion: sourceVersion = reader.sources.string(bytes)
            case .device: device = reader.device(bytes)
            case .creationDate:
                created = reader.date(bytes)
                if created == nil, !bytes.isEmpty {
                    extras.append(reader.extraAttribute(attributes, index, asText: true))
                    creationDateKeptAsText = true
                }
            case .startDate: hasStart = true; start = reader.date(bytes)
            case .endDate: hasEnd = true; end = reader.date(bytes)
            default: extras.append(reader.extraAttribute(attributes, index))
            }
        }
        guard typeEntry >= 0 else { return skipRecord("Record without a type") }
        guard let start else {
            return skipRecord(hasStart ? "Record with an unreadable startDate" : "Record without a startDate")
        }
        if let problem = Self.endProblem(end, hasEnd: hasEnd, start: start) { return skipRecord("Record \(problem)") }
        let type = reader.types.string(at: typeEntry)
        let traits = self.traits(typeEntry, type)
        let number = value.flatMap { DecimalNumber.parse($0) }
        var kind = SampleKind.quantity
        var categoryValue: String?
        switch traits.kind {
        // A state of mind is no quantity in HealthKit (its number is a valence): one without a
        // number is kept as the records of unknown types are.
        case .quantity? where type != Self.stateOfMind:
            guard number != nil else {
                guard let value else { return skipRecord("Quantity Record without a value") }
                return skipRecord(DecimalNumber.isOutOfRange(value) ? "Quantity Record with a value out of range"
                                  : "Quantity Record with a non-numeric value")
            }
        case .category?:
            kind = .category
            // A number (exports of iOS 8 and 9: `value="0"`) as the name later exports write.
            categoryValue = value.map { LegacyExportValues.categoryValueName($0, type: type) ?? reader.categoryValues.string($0) }
        default:
            if number == nil {
                if let value, DecimalNumber.isOutOfRange(value) { return skipRecord("Record with a value out of range") }
                kind = .category
                categoryValue = value.map { reader.categoryValues.string($0) }
            }
        }
        // Built with every field at once: assigning fields to a sample afterwards had the compiler
        // copy it whole, which retains every string of it once more.
        record = RecordDraft(
            sample: Sample(id: "", type: type, kind: kind, start: start, end: end ?? start,
                           value: kind == .quantity ? number : nil, unit: unit, categoryValue: categoryValue,
                           sourceName: sourceName, sourceVersion: sourceVersion, device: device, createdAt: created,
                           metadata: extras, userId: userId),
            typeEntry: typeEntry, typeGeneration: typeTraitsGeneration, canBeMember: traits.canBeMember,
            creationDateLine: creationDateKeptAsText ? lineNumber : nil)
    }

    /// What is wrong with an element's `endDate`, or nil when it can be used: a missing
    /// `endDate` is no problem (the element is a point in time at its start), one that cannot
    /// be read or lies before `start` is.
    static func endProblem(_ end: Timestamp?, hasEnd: Bool, start: Timestamp) -> String? {
        guard hasEnd else { return nil }
        guard let end else { return "with an unreadable endDate" }
        return end < start ? "with endDate before startDate" : nil
    }

    private func traits(_ entry: Int, _ type: String) -> TypeTraits {
        if typeTraitsGeneration != reader.types.generation {
            typeTraits.removeAll()
            typeTraitsGeneration = reader.types.generation
        }
        if entry < typeTraits.count, let known = typeTraits[entry] { return known }
        let kind: SampleKind?
        switch TypeRegistry.type(identifier: type)?.kind {
        case .quantity?: kind = .quantity
        case .category?: kind = .category
        default:
            if type.hasPrefix("HKQuantityTypeIdentifier") {
                kind = .quantity
            } else if type.hasPrefix("HKCategoryTypeIdentifier") {
                kind = .category
            } else {
                kind = nil
            }
        }
        let traits = TypeTraits(kind: kind, canBeMember: deduplicator.canBeMember(type: type),
                                registered: TypeRegistry.resolve(type))
        while typeTraits.count <= entry { typeTraits.append(nil) }
        typeTraits[entry] = traits
        return traits
    }

    private func addHeartbeat(_ attributes: SAXAttributes) {
        guard let start = record?.sample.start else { return }
        var bpm: Double?
        var time: Timestamp?
        for index in 0..<attributes.count {
            switch reader.names.name(attributes.name(index)) {
            case .bpm: bpm = DecimalNumber.parse(attributes.value(index), decimalComma: true)
            case .time: time = TimeOfDayParser.resolve(AttributeText.string(attributes.value(index)), relativeTo: start)
            default: break
            }
        }
        guard let bpm, let time else { return skip("InstantaneousBeatsPerMinute with an unreadable bpm or time") }
        guard record!.beats.count < Self.maximumBeats else {
            if !record!.beatsCut {
                record!.beatsCut = true
                skip("Record with more than \(NumberText.grouped(Self.maximumBeats)) InstantaneousBeatsPerMinute: the rest left out")
            }
            return
        }
        record!.beats.append(Heartbeat(time: time, beatsPerMinute: bpm))
    }

    private func finishRecord() {
        guard var draft = record.take() else { return }
        if !draft.beats.isEmpty {
            // Written on the phone's clock of the beat's day, not in the record's offset (the export's day's).
            draft.sample.detail = .heartbeats(HeartbeatClock.aligned(draft.beats, start: draft.sample.start, end: draft.sample.end))
        }
        // The parser looked the type up once per type, and made the device canonical as it read it.
        // Only a correlation's member, or a record that may be one, needs its id here: any other
        // gets it from the output, on the journal's thread (hashing was 15 % of the parser's thread).
        let registered = knownTraits(draft.typeEntry, draft.typeGeneration).map(\.registered)
            ?? TypeRegistry.resolve(draft.sample.type)
        let writtenUnit = draft.sample.unit
        SampleNormalizer.normalize(&draft.sample, convention: .healthKit, type: registered, deviceIsCanonical: true,
                                   assigningId: correlation != nil || draft.canBeMember)
        // In range as written, out of it in the canonical unit (`1e308 mi` in metres): no value to store.
        if draft.sample.fieldOutOfRange != nil {
            output.skipped("Quantity Record with a value out of range once converted from \(writtenUnit ?? "?") to "
                           + (draft.sample.unit ?? "?"), location: "line \(lineNumber)")
            return
        }
        if let line = draft.creationDateLine {
            output.skipped("Record creationDate that is not a date kept as text in metadata", location: "line \(line)")
        }
        if correlation != nil {
            if knownTraits(draft.typeEntry, draft.typeGeneration) != nil { typeTraits[draft.typeEntry]?.canBeMember = true }
            guard correlation!.members.count < Self.maximumMembers else {
                if !correlation!.membersCut {
                    correlation!.membersCut = true
                    skip("Correlation with more than \(NumberText.grouped(Self.maximumMembers)) member Records: the rest left out")
                }
                return
            }
            correlation!.members.append(Self.take(&draft.sample))
            return
        }
        if draft.canBeMember, !deduplicator.shouldEmitTopLevel(draft.sample) {
            return
        }
        append(taking: &draft.sample)
    }

    /// The traits of the type interned as `entry` in `generation`, when the table still holds them.
    private func knownTraits(_ entry: Int, _ generation: Int) -> TypeTraits? {
        guard generation == typeTraitsGeneration, entry < typeTraits.count else { return nil }
        return typeTraits[entry]
    }

    /// What a draft holds once its sample was taken out: nothing on the heap.
    private static let placeholder = Sample(id: "", type: "", kind: .quantity, start: Timestamp(epochMilliseconds: 0),
                                            end: Timestamp(epochMilliseconds: 0), sourceName: "")

    private func skipRecord(_ reason: String) {
        skip(reason)
        ignoreSubtree()
    }

    // MARK: Correlations

    private func beginCorrelation(_ attributes: SAXAttributes) {
        var type = ""
        var sourceName = ""
        var sourceVersion: String?
        var device: String?
        var created: Timestamp?
        var start: Timestamp?
        var hasStart = false
        var end: Timestamp?
        var hasEnd = false
        var extras: [MetadataEntry] = []
        var creationDateKeptAsText = false
        for index in 0..<attributes.count {
            let bytes = attributes.value(index)
            switch reader.names.name(attributes.name(index)) {
            case .type: type = reader.types.string(bytes)
            case .sourceName: sourceName = reader.sources.string(bytes)
            case .sourceVersion: sourceVersion = reader.sources.string(bytes)
            case .device: device = reader.device(bytes)
            case .creationDate:
                created = reader.date(bytes)
                if created == nil, !bytes.isEmpty {
                    extras.append(reader.extraAttribute(attributes, index, asText: true))
                    creationDateKeptAsText = true
                }
            case .startDate: hasStart = true; start = reader.date(bytes)
            case .endDate: hasEnd = true; end = reader.date(bytes)
            default: extras.append(reader.extraAttribute(attributes, index))
            }
        }
        guard !type.isEmpty else { return skipRecord("Correlation without a type") }
        guard let start else {
            return skipRecord(hasStart ? "Correlation with an unreadable startDate" : "Correlation without a startDate")
        }
        if let problem = Self.endProblem(end, hasEnd: hasEnd, start: start) { return skipRecord("Correlation \(problem)") }
        if creationDateKeptAsText { skip("Correlation creationDate that is not a date kept as text in metadata") }
        correlation = CorrelationDraft(sample: Sample(
            id: "", type: type, kind: .correlation, start: start, end: end ?? start, sourceName: sourceName,
            sourceVersion: sourceVersion, device: device, createdAt: created, metadata: extras, userId: userId))
    }

    /// Holds the correlation until the correlations of its start are all read (an export lists
    /// them by date): their members' ids are decided together (`releaseHeldCorrelations`).
    private func finishCorrelation() {
        guard let draft = correlation.take() else { return }
        if let first = heldCorrelations.first, first.sample.start.epochMilliseconds != draft.sample.start.epochMilliseconds {
            releaseHeldCorrelations()
        }
        heldCorrelations.append(draft)
    }

    /// Emits the held correlations in file order, each after its members (each once:
    /// `CorrelationMemberDeduplicator`, with ids of their own where it gives them). Called when a
    /// correlation of another time ends, and when the document ends; records and other elements
    /// between the correlations of one time are emitted before them. A document that fails leaves
    /// its last time's correlations unread: emitted without the ones after the cut, they would be
    /// decided otherwise than in the whole file, which brings them.
    func releaseHeldCorrelations() {
        guard !heldCorrelations.isEmpty else { return }
        let held = heldCorrelations
        heldCorrelations.removeAll()
        // One correlation at its time (most) has no member to share.
        var ownIds: [[Int: String]] = [[:]]
        if held.count > 1 {
            let digests = held.map { deduplicator.correlationDigest($0.sample, members: $0.members) }
            ownIds = deduplicator.ownMemberIds(zip(digests, held).map { ($0, $1.members) })
        }
        for (index, var draft) in held.enumerated() {
            var memberIds: [String] = []
            for (position, var member) in draft.members.enumerated() {
                if let own = ownIds[index][position] {
                    member.id = own
                    memberIds.append(own)
                    append(member)
                } else {
                    memberIds.append(member.id)
                    if deduplicator.shouldEmitMember(member) { append(member) }
                }
            }
            draft.members = []
            draft.sample.detail = .correlation(memberIds: memberIds)
            SampleNormalizer.normalize(&draft.sample, convention: .healthKit)
            append(draft.sample)
        }
    }

    // MARK: Workouts and records kept whole

    private func finishWorkout() {
        guard let builder = workout else { return }
        workout = nil
        var sample = builder.finish(line: lineNumber)
        SampleNormalizer.normalize(&sample, convention: .healthKit)
        if let field = sample.fieldOutOfRange {
            output.skipped("Workout with a \(field) out of range in its canonical unit (seconds, metres, kcal)",
                           location: "line \(lineNumber)")
            return
        }
        append(sample)
    }

    private func finishGeneric(_ finished: GenericRecord) {
        if generic.wasCutAtMaximumDepth {
            output.skipped("elements nested more than \(GenericRecordBuilder.maximumDepth) levels deep in a <\(finished.element)> "
                           + "(kept without them)", location: "line \(generic.line)")
        }
        if generic.wasCutAtMaximumElements {
            output.skipped("elements past the \(NumberText.grouped(GenericRecordBuilder.maximumElements))th in a <\(finished.element)> "
                           + "(kept without them)", location: "line \(generic.line)")
        }
        let offset = exportDate?.utcOffsetSeconds ?? reader.lastUTCOffset
        switch GenericRecordSample.sample(for: finished, exportDate: exportDate, exportOffset: offset, userId: userId) {
        case .success(var sample):
            SampleNormalizer.normalize(&sample, convention: .healthKit)
            if finished.element == "ClinicalRecord", let reference = finished[attribute: "resourceFilePath"] {
                attachResource(reference, of: finished, to: &sample)
            }
            append(sample)
        case .failure(let reason):
            output.skipped(reason.text, location: "line \(generic.line)")
        }
    }

    /// Adds the FHIR resource a `ClinicalRecord` names (its `resourceFilePath`) as a last child
    /// `FHIRResource` whose `json` attribute is the file's text. The sample keeps the id of the
    /// element without it (what healthrouter gave it before it read these files): the same record
    /// imported again is a change of that sample, not a second one; without its file (a bare
    /// export.xml imported after its zip) it is no change (`Journal.restoreFHIRResource`).
    private func attachResource(_ reference: String, of record: GenericRecord, to sample: inout Sample) {
        guard !reference.isEmpty else {
            output.skipped("ClinicalRecord with an empty resourceFilePath (kept without a FHIR resource)",
                           location: "line \(generic.line)")
            return
        }
        switch resources.resource(forReference: reference) {
        case .found(let text) where text.utf8.contains(0):
            output.skipped("ClinicalRecord's FHIR resource file holds NUL bytes, not JSON (record kept without it)",
                           location: "line \(generic.line)")
        case .found(let text):
            if (try? JSONParser.parse(text)) == nil {
                output.skipped("ClinicalRecord's FHIR resource file is not valid JSON (kept as text; json_valid() tells)",
                               location: "line \(generic.line)")
            }
            var whole = record
            whole.children.append(GenericRecord(element: GenericRecord.fhirResourceElement, attributes: [.init("json", text)]))
            sample.detail = .record(whole)
        case .missing:
            output.skipped("ClinicalRecord's FHIR resource file not found in the export (record kept without it)",
                           location: "line \(generic.line)")
        case .refused:
            break
        }
    }

    // MARK: Helpers

    private func append(_ sample: consuming Sample) {
        countsByKind[Int(sample.kind.rawValue)] += 1
        // A consuming parameter is the function's own: adjusted in place, not copied.
        if zoneOffsets.applies(to: sample) { zoneOffsets.apply(to: &sample) }
        pending.append(.sample(consume sample))
    }

    /// `append(_:)` for a sample held in a draft: swapped out of it (the placeholder stays behind),
    /// so that it is moved rather than copied, which would retain every string of it.
    private func append(taking sample: inout Sample) {
        let taken = Self.take(&sample)
        append(consume taken)
    }

    private static func take(_ sample: inout Sample) -> Sample {
        var taken = placeholder
        swap(&taken, &sample)
        return taken
    }

    /// HealthKit's identifier of state-of-mind samples.
    static let stateOfMind = "HKDataTypeStateOfMind"

    /// Reported for a `MetadataEntry` whose key its element has already.
    static let repeatedKey = "MetadataEntry with a key given before in its element: the last value kept"
    /// The most metadata entries one element keeps (HealthKit's samples have a few dozen at most).
    static let metadataLimit = 1_000
    static let tooManyEntries = "MetadataEntry past the 1,000th of its element: left out"

    private func skip(_ reason: String) {
        output.skipped(reason, location: "line \(lineNumber)")
    }

    /// Adds `entry` to a sample's metadata (at most `metadataLimit` entries); a kept `HKTimeZone`
    /// is also the sample's zone. Returns why the entry is reported, when it is: its key came
    /// before, or it came past the limit.
    static func addMetadata(_ entry: MetadataEntry, to sample: inout Sample) -> String? {
        let outcome = sample.metadata.set(entry, limit: metadataLimit)
        if outcome != .refused, entry.key == "HKTimeZone", case .string(let zone) = entry.value { sample.timeZone = zone }
        return report(of: outcome)
    }

    /// Why a `MetadataEntry` with this outcome is reported, when it is.
    static func report(of outcome: [MetadataEntry].SetOutcome) -> String? {
        switch outcome {
        case .added: nil
        case .replaced: repeatedKey
        case .refused: tooManyEntries
        }
    }

    /// Ignores the element just opened and everything inside it.
    private func ignoreSubtree() {
        ignoredDepth = open.count
    }

    private func ignoreUnknown(_ name: UnsafePointer<UInt8>, inside parent: String) {
        unknownElementSkip = ("Unknown element <\(reader.names.text(name))> inside <\(parent)> not imported", lineNumber)
        ignoreSubtree()
    }
}
