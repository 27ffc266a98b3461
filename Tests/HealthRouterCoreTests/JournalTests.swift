import Foundation
import TestSupport
import Testing
@testable import HealthRouterCore

@Suite struct JournalTests {
    /// Every connection to the journal keeps statement journals in memory: with 16 KiB pages they
    /// spilled to a temporary file on every push otherwise.
    @Test func statementJournalsStayInMemory() throws {
        let directory = makeTemporaryDirectory()
        for role in [Journal.Role.writer, .reader, .inspector] {
            let journal = try Journal(stateDirectory: directory, role: role)
            #expect(try journal.database.scalarInt("PRAGMA temp_store") == 2)
        }
    }

    /// Dead letters a receiver named together (a body's refused elements) are parked in one
    /// commit, each with its reason; a later one of the same entry replaces its reason.
    @Test func deadLettersAreParkedTogether() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        let letters = (1...2_000).map { (sequence: Int64($0), reason: "refused \($0)") }
        try journal.addDeadLetters(sink: "mirror", letters)
        #expect(try journal.deadLetters(sink: "mirror").count == 2_000)
        #expect(try journal.deadLetters(sink: "mirror").last?.reason == "refused 2000")
        try journal.addDeadLetter(sink: "mirror", sequence: 7, reason: "again")
        #expect(try journal.deadLetters(sink: "mirror").first { $0.sequence == 7 }?.reason == "again")
        #expect(try journal.deadLetters(sink: "other").isEmpty)
        // Inside a caller's transaction (the push writer's group commit), they go with it.
        #expect(throws: (any Error).self) {
            try journal.database.transaction {
                try journal.addDeadLetters(sink: "rolled", [(1, "one"), (2, "two")])
                try journal.database.execute("SELECT * FROM no_such_table")
            }
        }
        #expect(try journal.deadLetters(sink: "rolled").isEmpty)
    }

    /// The counts by type and source (`status`, `/metrics`) are what `GROUP BY` gives, in its
    /// order, counted without SQLite's sort (400 MB of memory at 4.7M entries, or a temporary file).
    @Test func entryCountsByTypeAndSourceAreGroupBys() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        var items: [HealthItem] = []
        for index in 0..<60 {
            var sample = heartRate(60 + Double(index), at: Int64(index))
            if index % 7 == 3 { sample.type = "HKQuantityTypeIdentifierStepCount" }
            items.append(.sample(sample))
            if index % 11 == 5 { items.append(.tombstone(Tombstone(ids: ["X-\(index)"]))) }
        }
        try journal.append(Array(items[..<30]), source: "history")
        try journal.append(Array(items[30...]), source: "phone")
        try journal.append(Array(items[..<10]).map { item in
            guard case .sample(var sample) = item else { return item }
            sample.value = 1
            return .sample(sample)
        }, source: "history")
        for after: Int64 in [0, 17, 64] {
            let statement = try journal.database.prepare(
                "SELECT type, source, count(*) FROM entries WHERE seq > ?1 GROUP BY type, source")
            statement.bind(1, after)
            var grouped: [String] = []
            while try statement.step() { grouped.append("\(statement.string(0) ?? "-") \(statement.string(1) ?? "") \(statement.int64(2))") }
            let counted = try journal.entryCountsByTypeAndSource(after: after).map { "\($0.type ?? "-") \($0.source) \($0.count)" }
            #expect(counted == grouped, "after \(after)")
            #expect(!grouped.isEmpty)
        }
    }

    @Test func duplicatesAreNotAppendedAgain() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        let items = (0..<100).map { HealthItem.sample(heartRate(60 + Double($0 % 7), at: Int64($0))) }
        let first = try journal.append(items, source: "history")
        #expect(first.newCount == 100)
        #expect(first.entriesWritten == 100)
        let second = try journal.append(items, source: "history")
        #expect(second.newCount == 0)
        #expect(second.duplicateCount == 100)
        #expect(second.entriesWritten == 0)
        #expect(try journal.head() == 100)
    }

    /// Among pushes (`enforcesOwners`), an id belongs to the first user who brought it: another
    /// user's sample or tombstone under it, or under an alias of it, is left out and counted; the
    /// owner, and items without a user, still change and delete it. Imports and replays
    /// (without `enforcesOwners`) record no owners and refuse nothing.
    /// A deletion naming many ids of another user's samples (a push of one `{"deleted": […]}` a
    /// user may send) lists them in `refusedItems` in linear time: they were copied into a new
    /// list at each one (12 s for 40,000 ids in a debug build, 73 s for 100,000), holding the
    /// journal's write lock, and every push waiting on it.
    @Test func aDeletionOfManyOfAnotherUsersIdsIsRefusedInLinearTime() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        journal.enforcesOwners = true
        let ids = (0..<40_000).map { "A-\($0)" }
        let samples = ids.enumerated().map { index, id -> HealthItem in
            var sample = heartRate(60, at: Int64(index))
            sample.id = id
            sample.userId = "alice"
            return .sample(sample)
        }
        #expect(try journal.append(samples, source: "push").newCount == ids.count)
        let started = Date()
        let refused = try journal.append([.tombstone(Tombstone(ids: ids, userId: "bob"))], source: "push")
        let seconds = Date().timeIntervalSince(started)
        #expect(refused.refusedOtherUsersIds == ids.count && refused.deletedIds == 0)
        #expect(refused.refusedItems == [0: .deletion(ids.map(SampleIdKey.canonicalCase))])
        #expect(seconds < 5, "\(seconds) s to refuse a deletion of \(ids.count) ids")
    }

    @Test func amongPushesAnIdBelongsToItsFirstUser() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        journal.enforcesOwners = true
        func pushed(_ id: String, _ bpm: Double, by user: String?, at second: Int64 = 0) -> HealthItem {
            var sample = heartRate(bpm, at: second)
            sample.id = id
            sample.userId = user
            return .sample(sample)
        }
        #expect(try journal.append([pushed("P-1", 60, by: "alice"), pushed("P-2", 61, by: "alice", at: 30)], source: "push").newCount == 2)
        let refused = try journal.append([pushed("P-1", 99, by: "bob"), pushed("P-1", 99, by: "bob", at: 60),
                                          .tombstone(Tombstone(ids: ["P-2"], userId: "bob"))], source: "push")
        #expect(refused.refusedOtherUsersIds == 3 && refused.entriesWritten == 0)
        #expect(try journal.append([pushed("P-1", 62, by: "alice")], source: "push").changedCount == 1)
        #expect(try journal.append([pushed("P-1", 63, by: nil)], source: "replay").changedCount == 1)
        #expect(try journal.append([.tombstone(Tombstone(ids: ["P-2"], userId: nil))], source: "replay").deletedIds == 1)

        // A fingerprint id is owned as any other: anyone who knows the reading can compute it.
        var reading = heartRate(70, at: 90)
        reading.userId = "alice"
        #expect(try journal.append([.sample(reading)], source: "push").newCount == 1)
        reading.userId = "bob"
        #expect(try journal.append([.sample(reading)], source: "push").refusedOtherUsersIds == 1)

        // Bob's own id for the reading alice pushed under hers is an alias of it: his tombstone
        // deletes his id, never hers.
        var hers = heartRate(80, at: 120)
        hers.id = "ALICE-OWN"
        hers.userId = "alice"
        var his = heartRate(80, at: 120)
        his.userId = "bob"
        #expect(try journal.append([.sample(hers)], source: "push").newCount == 1)
        #expect(try journal.append([.sample(his)], source: "push").aliased == 1)
        let tombstone = try journal.appendCollecting([.tombstone(Tombstone(ids: [his.id], userId: "bob"))], source: "push")
        #expect(tombstone.result.refusedOtherUsersIds == 1)
        #expect(tombstone.entries.map(\.item) == [.tombstone(Tombstone(ids: [his.id], userId: "bob"))])

        // An import's journal keeps no owners: the same writes pass.
        let directory = makeTemporaryDirectory()
        let imports = try Journal(stateDirectory: directory)
        #expect(try imports.append([pushed("I-1", 60, by: "alice")], source: "history").newCount == 1)
        #expect(try imports.append([pushed("I-1", 61, by: "bob")], source: "history").changedCount == 1)
        #expect(try imports.append([pushed("I-2", 70, by: "alice")], source: "history").newCount == 1)
        // Pushed later, an imported id with a user is that user's: another's change is refused.
        let pushes = try Journal(stateDirectory: directory)
        pushes.enforcesOwners = true
        #expect(try pushes.append([pushed("I-2", 1, by: "bob")], source: "push").refusedOtherUsersIds == 1)
        #expect(try pushes.append([pushed("I-2", 71, by: "alice")], source: "push").changedCount == 1)
    }

    @Test func aSampleWithoutAnIdGetsItsFingerprintId() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        let sample = heartRate(60, at: 0)
        var withoutId = sample
        withoutId.id = ""
        let appended = try journal.appendCollecting([.sample(withoutId)], source: "history")
        #expect(appended.result.newCount == 1)
        #expect(appended.entries.map(\.item) == [.sample(sample)])
        #expect(appended.entries.map(\.isFirstOfId) == [true])
        #expect(try journal.entries(after: 0, limit: 10).map { try $0.decoded().item } == [.sample(sample)])
        // The same sample, with its id this time (or without again): the same one.
        #expect(try journal.append([.sample(sample), .sample(withoutId)], source: "history").duplicateCount == 2)
    }

    /// Other UTC offsets of the same instants are the same sample: no new entry, and the entry
    /// keeps the offsets it first came with. A hash stored before offsets were left out of it
    /// (an older journal) is recognised and brought up to date.
    @Test func otherOffsetsOfTheSameInstantsAreTheSameSample() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        var winter = heartRate(60, at: 0)
        winter.id = "HK-UUID-2"
        winter.start.utcOffsetSeconds = -28_800
        winter.end.utcOffsetSeconds = -28_800
        try journal.append([.sample(winter)], source: "history")
        var summer = winter
        summer.start.utcOffsetSeconds = -25_200
        summer.end.utcOffsetSeconds = -25_200
        let again = try journal.append([.sample(summer)], source: "history")
        #expect(again.duplicateCount == 1 && again.changedCount == 0 && again.entriesWritten == 0)
        #expect(try journal.entries(after: 0, limit: 10).map { try $0.decoded().item } == [.sample(winter)])

        let legacy = ContentHash.of(SampleCodec.encode(.sample(winter)))
        try journal.database.execute("UPDATE sample_ids SET content_hash = \(legacy)")
        #expect(try journal.append([.sample(winter)], source: "history").duplicateCount == 1)
        #expect(try journal.database.scalarInt("SELECT content_hash FROM sample_ids") != legacy)
        #expect(try journal.append([.sample(summer)], source: "history").duplicateCount == 1)
    }

    /// A record edited between a winter and a summer export keeps the offset it was first journaled
    /// with when the input's dates carry the exporter's offset (an export): every date of it that
    /// carries the exporter's offset, the workout's events and route points too (a GPX file's, which
    /// the export source gives the workout's offset), also one new to the edit; a GPX point a build
    /// before journaled in UTC keeps its own. It holds once the entry is pruned, and for a zone
    /// this machine does not know. A version that records a known zone, and any input that is not an
    /// export, keep what they say.
    @Test func aChangedSampleFromAnExportKeepsItsFirstOffsets() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        func workout(offset: Int32, energy: Double, extraEvent: Bool = false, gpxInUTC: Bool = false) -> Sample {
            func at(_ milliseconds: Int64) -> Timestamp { Timestamp(epochMilliseconds: milliseconds, utcOffsetSeconds: offset) }
            var detail = Workout(activityType: "HKWorkoutActivityTypeRunning", totalEnergyBurnedKilocalories: energy)
            detail.events = [WorkoutEvent(type: "HKWorkoutEventTypePause", date: at(10_000))]
            if extraEvent { detail.events.append(WorkoutEvent(type: "HKWorkoutEventTypeResume", date: at(20_000))) }
            // A GPX file's point at the workout's start instant (in UTC as a build before read it), and an inline one.
            let gpx = RoutePoint(time: gpxInUTC ? Timestamp(epochMilliseconds: 0, utcOffsetSeconds: 0) : at(0), latitude: 1, longitude: 2)
            detail.routes = [WorkoutRoute(sourceName: "Watch", points: [gpx]),
                             WorkoutRoute(sourceName: "Watch", points: [RoutePoint(time: at(1_000), latitude: 1, longitude: 2)])]
            detail.routes[0].filePath = "/workout-routes/route_2024-01-15_8.00am.gpx"
            return Sample(id: "W-1", type: "HKWorkoutTypeIdentifier", kind: .workout, start: at(0), end: at(60_000),
                          sourceName: "Watch", detail: .workout(detail))
        }
        func offsets(_ sample: Sample) -> [Int32?] {
            var sample = sample
            var found: [Int32?] = []
            sample.visitTimestamps { found.append($0.utcOffsetSeconds) }
            return found
        }
        func changed(_ sample: Sample) throws -> Sample? {
            let appended = try journal.appendCollecting([.sample(sample)], source: "export")
            guard appended.result.changedCount == 1, case .sample(let kept)? = appended.entries.first?.item else { return nil }
            return kept
        }
        journal.keepsFirstOffsets = true
        #expect(try journal.append([.sample(workout(offset: -28_800, energy: 300))], source: "export").newCount == 1)
        let kept = try #require(try changed(workout(offset: -25_200, energy: 310, extraEvent: true)))
        // start, end, the pause, the resume (new to the edit), the GPX point, the inline point.
        #expect(offsets(kept) == [-28_800, -28_800, -28_800, -28_800, -28_800, -28_800])
        #expect(try journal.entries(after: 0, limit: 10).last.map { try $0.decoded().item } == .sample(kept))

        // A row an older journal wrote has no start offset: the stored entry gives it, and fills it in.
        try journal.database.execute("UPDATE sample_ids SET start_offset = NULL")
        #expect(offsets(try #require(try changed(workout(offset: -25_200, energy: 312)))) == [-28_800, -28_800, -28_800, -28_800, -28_800])
        #expect(try journal.database.scalarInt("SELECT start_offset FROM sample_ids") == -28_800)
        // The entries pruned (journal.retain): the first offset is kept with the id.
        try journal.database.execute("DELETE FROM entries")
        #expect(offsets(try #require(try changed(workout(offset: -25_200, energy: 315)))) == [-28_800, -28_800, -28_800, -28_800, -28_800])
        // A zone this machine does not know gave no offsets: the exporter's are replaced as well.
        var unknownZone = workout(offset: -25_200, energy: 316)
        unknownZone.timeZone = "Mars/Olympus"
        #expect(offsets(try #require(try changed(unknownZone))) == [-28_800, -28_800, -28_800, -28_800, -28_800])

        // A version that recorded a known zone says its offsets itself.
        var zoned = workout(offset: -25_200, energy: 320)
        zoned.timeZone = "America/Los_Angeles"
        #expect(offsets(try #require(try changed(zoned))) == [-25_200, -25_200, -25_200, -25_200, -25_200])

        // An exporter in UTC: the dates it stamped take the first offset, the GPX point's too.
        #expect(offsets(try #require(try changed(workout(offset: 0, energy: 325)))) == [-28_800, -28_800, -28_800, -28_800, -28_800])
        // A GPX point read in UTC by a build before keeps its own.
        #expect(offsets(try #require(try changed(workout(offset: -25_200, energy: 326, gpxInUTC: true))))
                    == [-28_800, -28_800, -28_800, 0, -28_800])

        // Not an export (a replay, a push): the new version's offsets stand.
        journal.keepsFirstOffsets = false
        #expect(offsets(try #require(try changed(workout(offset: 3_600, energy: 330)))) == [3_600, 3_600, 3_600, 3_600, 3_600])
    }

    /// A workout route's date attributes (`creationDate`, kept as text) count as their instants:
    /// the same route exported at another offset is the same workout. A hash stored while they
    /// counted as text is recognised and brought up to date.
    @Test func aRoutesCreationDateAtAnotherOffsetIsTheSameWorkout() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        func workout(_ created: String, offset: Int32) -> Sample {
            var route = WorkoutRoute(sourceName: "Watch", metadata: [MetadataEntry("creationDate", .string(created)),
                                                                     MetadataEntry("sourceVersion", .string("10.1"))])
            route.points = [RoutePoint(time: Timestamp(epochMilliseconds: 1_000, utcOffsetSeconds: offset), latitude: 1, longitude: 2)]
            var workout = Workout(activityType: "HKWorkoutActivityTypeRunning")
            workout.routes = [route]
            return Sample(id: "", type: "HKWorkoutTypeIdentifier", kind: .workout,
                          start: Timestamp(epochMilliseconds: 0, utcOffsetSeconds: offset),
                          end: Timestamp(epochMilliseconds: 60_000, utcOffsetSeconds: offset),
                          sourceName: "Watch", detail: .workout(workout))
        }
        let winter = workout("2021-12-31 08:10:49 -0800", offset: -28_800)
        let summer = workout("2021-12-31 09:10:49 -0700", offset: -25_200)
        #expect(try journal.append([.sample(winter)], source: "history").newCount == 1)
        let again = try journal.append([.sample(summer)], source: "history")
        #expect(again.duplicateCount == 1 && again.changedCount == 0)
        var later = summer
        if case .workout(var detail) = later.detail {
            detail.routes[0].metadata[0] = MetadataEntry("creationDate", .string("2021-12-31 09:10:50 -0700"))
            later.detail = .workout(detail)
        }
        #expect(try journal.append([.sample(later)], source: "history").changedCount == 1)

        // A journal that hashed the text: the same export again is recognised, the hash updated.
        let older = try Journal(stateDirectory: makeTemporaryDirectory())
        #expect(try older.append([.sample(winter)], source: "history").newCount == 1)
        var textHashWriter = ByteWriter()
        textHashWriter.marksOffsets = true
        var stored = winter
        stored.id = try #require(older.entries(after: 0, limit: 1).first.flatMap { entry -> String? in
            if case .sample(let s) = try entry.decoded().item { return s.id } else { return nil }
        })
        SampleCodec.encode(sample: stored, into: &textHashWriter)
        let textHash = ContentHash.of(textHashWriter.bytes, skipping: textHashWriter.offsetRanges)
        try older.database.execute("UPDATE sample_ids SET content_hash = \(textHash)")
        #expect(try older.append([.sample(winter)], source: "history").duplicateCount == 1)
        #expect(try older.database.scalarInt("SELECT content_hash FROM sample_ids") != textHash)
        #expect(try older.append([.sample(summer)], source: "history").duplicateCount == 1)
    }

    /// A fingerprint id met again with other content: in the import that journaled it (after
    /// `twinsAfter`), or in one that met it as it was before, a second sample under its twin id;
    /// in a later one without it, or without `twinsAfter` (the daemon), a change.
    @Test func aSecondSampleOfOneFingerprintInOneImportIsATwin() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        var eggs = heartRate(155, at: 0)
        eggs.id = ""
        eggs.metadata = [MetadataEntry("HKFoodType", .string("Eggs"))]
        var toast = eggs
        toast.metadata = [MetadataEntry("HKFoodType", .string("Toast"))]
        journal.twinsAfter = try journal.head()
        let first = try journal.appendCollecting([.sample(eggs), .sample(toast)], source: "history")
        #expect(first.result.newCount == 2 && first.result.changedCount == 0)
        let ids = first.entries.compactMap { if case .sample(let s) = $0.item { s.id } else { nil } }
        #expect(Set(ids).count == 2)
        journal.twinsAfter = try journal.head()
        let again = try journal.append([.sample(eggs), .sample(toast)], source: "history")
        #expect(again.duplicateCount == 2 && again.entriesWritten == 0)
        var edited = eggs
        edited.metadata = [MetadataEntry("HKFoodType", .string("Omelette"))]
        // The import that met the eggs as they were: a third food beside them.
        #expect(try journal.append([.sample(edited)], source: "history").newCount == 1)
        // A later import that holds fried eggs alone: an edit of the eggs.
        var fried = eggs
        fried.metadata = [MetadataEntry("HKFoodType", .string("Fried eggs"))]
        journal.twinsAfter = try journal.head()
        #expect(try journal.append([.sample(fried)], source: "history").changedCount == 1)
        journal.twinsAfter = nil
        var renamed = toast
        renamed.metadata = [MetadataEntry("HKFoodType", .string("Bread"))]
        #expect(try journal.append([.sample(renamed)], source: "history").changedCount == 1)
    }

    /// A forward that leaves out a sample's detail parts keeps the stored ones; but in an import
    /// that tells twins apart, a second sample of one fingerprint without the parts the first
    /// has is a twin of its own, with its own (no) parts, not the first one again.
    @Test func omittedPartsAreKeptExceptBetweenTwins() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        var beats = heartRate(48, at: 0)
        beats.type = "HKQuantityTypeIdentifierHeartRateVariabilitySDNN"
        beats.unit = "ms"
        beats.id = ""
        beats.detail = .heartbeats([Heartbeat(time: beats.start, beatsPerMinute: 61)])
        var bare = beats
        bare.detail = .none
        journal.twinsAfter = try journal.head()
        let imported = try journal.appendCollecting([.sample(beats), .sample(bare)], source: "history")
        #expect(imported.result.newCount == 2)
        #expect(imported.entries.compactMap { if case .sample(let s) = $0.item { s.detail } else { nil } }
                == [beats.detail, .none])
        // Forwarded later (no twins told apart), the bare sample is the first one: its beats stay.
        journal.twinsAfter = nil
        var forwarded = bare
        forwarded.id = imported.entries.compactMap { if case .sample(let s) = $0.item { s.id } else { nil } }[0]
        #expect(try journal.append([.sample(forwarded)], source: "push").duplicateCount == 1)
    }

    @Test func changedSampleUnderSameIdIsANewEntry() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        var sample = heartRate(60, at: 0)
        sample.id = "HK-UUID-1"
        try journal.append([.sample(sample)], source: "phone")
        sample.metadata = [MetadataEntry("timeZone", .string("Europe/Lisbon"))]
        let result = try journal.append([.sample(sample)], source: "phone")
        #expect(result.changedCount == 1)
        #expect(result.entriesWritten == 1)
        let entries = try journal.entries(after: 0, limit: 10)
        #expect(entries.map(\.sequence) == [1, 2])
        #expect(try entries[1].decoded().item == .sample(sample))
    }

    /// A replay (a dump read again) meets each version of a changed sample: the versions the journal
    /// replaced before the replay began are earlier ones, not changes back, so the replay adds
    /// nothing; within one replay the later line is the later version (a change back included).
    /// Outside a replay (a push, an export) a version met again is a change as before.
    @Test func aReplayReadAgainDoesNotTakeBackEarlierVersions() throws {
        var a = heartRate(60, at: 0)
        a.id = "HK-UUID-1"
        var b = a
        b.value = 61
        let dump: [HealthItem] = [.sample(a), .sample(b)]
        func replay(_ journal: Journal, _ items: [HealthItem]) throws -> AppendResult {
            journal.inputStart = try journal.head()
            journal.refusesEarlierVersions = true
            defer { journal.refusesEarlierVersions = false; journal.inputStart = nil }
            return try journal.append(items, source: "replay")
        }
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        let first = try replay(journal, dump)
        #expect(first.newCount == 1 && first.changedCount == 1)
        let again = try replay(journal, dump)
        #expect(again.entriesWritten == 0)
        #expect(again.earlierVersions == 1 && again.duplicateCount == 2)
        #expect(try journal.head() == 2)
        // A backfill from the dump leaves the earlier version out.
        #expect(try journal.isEarlierVersion(a))
        #expect(try !journal.isEarlierVersion(b))
        // A change back within one replay (the journal went a → b → a) ends at a, on a fresh journal too.
        let reverted = try Journal(stateDirectory: makeTemporaryDirectory())
        let history = try replay(reverted, dump + [.sample(a)])
        #expect(history.changedCount == 2 && history.earlierVersions == 0)
        #expect(try reverted.entries(after: 2, limit: 1).first?.decoded().item == .sample(a))
        #expect(try replay(reverted, dump + [.sample(a)]).entriesWritten == 0)
        // Not a replay: the earlier version sent again is a change, as it always was.
        let pushed = try journal.append([.sample(a)], source: "phone")
        #expect(pushed.changedCount == 1 && pushed.earlierVersions == 0)
    }

    /// An export's profile (`Me`, at the export date, its id its content's) read after a newer
    /// export's is left out: the newer stays the user's profile; each user has their own.
    @Test func anOlderExportsProfileIsAnEarlierVersion() throws {
        func profile(at second: Int64, height: String, user: String? = nil) -> Sample {
            let record = GenericRecord(element: "Me", attributes: [.init("HKCharacteristicTypeIdentifierBiologicalSex", height)])
            let sample = Sample(id: UUIDv5.string(name: "Me\(height)"), type: "Me", kind: .profile,
                                start: Timestamp(epochSeconds: 1_700_000_000 + second), end: Timestamp(epochSeconds: 1_700_000_000 + second),
                                sourceName: "Health", userId: user, detail: .record(record))
            return sample
        }
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        #expect(try journal.append([.sample(profile(at: 86_400, height: "new"))], source: "export").newCount == 1)
        let older = try journal.append([.sample(profile(at: 0, height: "old"))], source: "export")
        #expect(older.entriesWritten == 0 && older.earlierVersions == 1)
        #expect(try journal.isEarlierVersion(profile(at: 0, height: "old")))
        #expect(try journal.append([.sample(profile(at: 0, height: "old", user: "ann"))], source: "export").newCount == 1)
        #expect(try journal.append([.sample(profile(at: 2 * 86_400, height: "newer"))], source: "export").newCount == 1)
    }

    /// One rule for tombstones, in the order items come: a tombstone deletes what was stored before
    /// it; a sample sent again after its deletion is a duplicate (it stays deleted); an id never
    /// stored before its tombstone is stored when it comes, in the same batch or later (as Pulso's
    /// server does: a tombstone blocks no later sample).
    @Test func aTombstoneDeletesWhatCameBeforeIt() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        var seen = heartRate(60, at: 0)
        seen.id = "SEEN"
        var unseen = heartRate(61, at: 1)
        unseen.id = "UNSEEN"
        var later = heartRate(62, at: 2)
        later.id = "LATER"
        try journal.append([.sample(seen)], source: "phone")
        let body = try journal.append([.tombstone(Tombstone(ids: ["SEEN", "UNSEEN"])), .sample(unseen), .sample(seen)], source: "phone")
        #expect(body.deletedIds == 2 && body.newCount == 1 && body.duplicateCount == 1)
        try journal.append([.tombstone(Tombstone(ids: ["LATER"]))], source: "phone")
        #expect(try journal.append([.sample(later)], source: "phone").newCount == 1)
        // Sent again with other content after its deletion, it stays deleted too: no change is
        // journaled (a sink would store it again). One stored after its tombstone still changes.
        let head = try journal.head()
        var edited = seen
        edited.value = 70
        edited.metadata = [MetadataEntry("note", .string("edited"))]
        let again = try journal.append([.sample(edited)], source: "phone")
        #expect(again.changedCount == 0 && again.duplicateCount == 1 && again.entriesWritten == 0)
        #expect(try journal.head() == head)
        var unseenEdited = unseen
        unseenEdited.value = 71
        #expect(try journal.append([.sample(unseenEdited)], source: "phone").changedCount == 1)
        // Deleted once it was stored, it is deleted: the tombstone before it does not make this
        // one a deletion seen before (every sink kept the sample). Then it stays deleted.
        let second = try journal.append([.tombstone(Tombstone(ids: ["UNSEEN"]))], source: "phone")
        #expect(second.deletedIds == 1 && second.entriesWritten == 1)
        #expect(try journal.append([.sample(unseenEdited)], source: "phone").entriesWritten == 0)
        // So in one body too.
        var third = heartRate(63, at: 3)
        third.id = "THIRD"
        let body2 = try journal.append([.tombstone(Tombstone(ids: ["THIRD"])), .sample(third), .tombstone(Tombstone(ids: ["THIRD"]))],
                                       source: "phone")
        #expect(body2.deletedIds == 2 && body2.newCount == 1 && body2.entriesWritten == 3)
        #expect(try journal.isDeleted(third))
        // What a deletion deleted stays deleted when its id is stored again at another start (which
        // the journal takes for another sample): sent again with other content at its own start, it
        // is not taken back.
        var early = heartRate(64, at: 4)
        early.id = "MOVED"
        try journal.append([.sample(early), .tombstone(Tombstone(ids: ["MOVED"]))], source: "phone")
        var elsewhere = heartRate(65, at: 3_600)
        elsewhere.id = "MOVED"
        #expect(try journal.append([.sample(elsewhere)], source: "phone").newCount == 1)
        // A backfill from a file holding the deleted one leaves it out, and writes the other.
        #expect(try journal.isDeleted(early) && !journal.isDeleted(elsewhere))
        var earlyEdited = early
        earlyEdited.value = 66
        #expect(try journal.append([.sample(earlyEdited)], source: "phone").entriesWritten == 0)
        var elsewhereEdited = elsewhere
        elsewhereEdited.value = 67
        #expect(try journal.append([.sample(elsewhereEdited)], source: "phone").changedCount == 1)
    }

    /// A pushed id that is an alias of an export's reading: deleted, then stored at another start,
    /// the reading its deletion deleted stays deleted (sent again, or backfilled from the export);
    /// and a tombstone naming the export's id does not keep the id's sample at another start
    /// deleted.
    @Test func aDeletionThroughAnAliasHoldsAtItsStartOnly() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        let exported = heartRate(60, at: 0)
        var pushed = exported
        pushed.id = "PUSHED"
        try journal.append([.sample(exported)], source: "history")
        #expect(try journal.append([.sample(pushed)], source: "phone").aliased == 1)
        #expect(try journal.append([.tombstone(Tombstone(ids: ["PUSHED"]))], source: "phone").deletedIds == 1)
        var later = heartRate(61, at: 3_600)
        later.id = "PUSHED"
        #expect(try journal.append([.sample(later)], source: "phone").newCount == 1)
        var again = pushed
        again.value = 62
        #expect(try journal.append([.sample(again), .sample(pushed)], source: "phone").entriesWritten == 0)
        #expect(try journal.isDeleted(exported) && !journal.isDeleted(later))

        let other = try Journal(stateDirectory: makeTemporaryDirectory())
        let noon = heartRate(70, at: 43_200)
        var alias = noon
        alias.id = "ALIAS"
        try other.append([.sample(noon)], source: "history")
        #expect(try other.append([.sample(alias)], source: "phone").aliased == 1)
        #expect(try other.append([.tombstone(Tombstone(ids: [noon.id]))], source: "phone").deletedIds == 1)
        var morning = heartRate(61, at: 32_400)
        morning.id = "ALIAS"
        #expect(try other.append([.sample(morning)], source: "phone").newCount == 1)
        #expect(try other.isDeleted(noon) && !other.isDeleted(morning))

        // An id deleted before it came, then taken as an alias of a reading: that is the id
        // stored, and a tombstone after it deletes the reading.
        let third = try Journal(stateDirectory: makeTemporaryDirectory())
        #expect(try third.append([.tombstone(Tombstone(ids: ["LATE"]))], source: "phone").deletedIds == 1)
        try third.append([.sample(noon)], source: "history")
        var late = noon
        late.id = "LATE"
        #expect(try third.append([.sample(late)], source: "phone").aliased == 1)
        let again2 = try third.append([.tombstone(Tombstone(ids: ["LATE"]))], source: "phone")
        #expect(again2.deletedIds == 1 && again2.entriesWritten == 1)
        #expect(try third.isDeleted(noon))

        // A tombstone naming both names of a reading records both: what comes later under either
        // is told apart the same way whichever it named.
        let fourth = try Journal(stateDirectory: makeTemporaryDirectory())
        try fourth.append([.sample(noon)], source: "history")
        #expect(try fourth.append([.sample(alias)], source: "phone").aliased == 1)
        #expect(try fourth.append([.tombstone(Tombstone(ids: ["ALIAS", noon.id]))], source: "phone").deletedIds == 2)
        #expect(try fourth.append([.sample(morning)], source: "phone").newCount == 1)
        #expect(try fourth.append([.tombstone(Tombstone(ids: [noon.id]))], source: "phone").deletedIds == 0)
        #expect(try !fourth.isDeleted(morning))
    }

    /// A journal from before `deleted_ids.revived`, whose deletion a sample followed: the column is
    /// filled in when it is added, so a second tombstone deletes that sample again.
    @Test func aJournalFromBeforeKnowsWhichDeletionsASampleFollowed() throws {
        let directory = makeTemporaryDirectory()
        var followed = heartRate(60, at: 0)
        followed.id = "FOLLOWED"
        do {
            let journal = try Journal(stateDirectory: directory)
            try journal.append([.tombstone(Tombstone(ids: ["FOLLOWED", "ALONE"])), .sample(followed)], source: "phone")
        }
        let database = try SQLiteDatabase(path: directory + "/journal.sqlite")
        try database.execute("ALTER TABLE deleted_ids DROP COLUMN revived")
        let reopened = try Journal(stateDirectory: directory)
        let second = try reopened.append([.tombstone(Tombstone(ids: ["FOLLOWED", "ALONE"]))], source: "phone")
        #expect(second.deletedIds == 1 && second.entriesWritten == 1)
        #expect(try reopened.isDeleted(followed))
    }

    @Test func entriesSayWhetherTheyAreTheFirstOfTheirId() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        let exported = heartRate(60, at: 0)
        var native = heartRate(61, at: 1)
        native.id = "6F0D3A52-1C9B-4B8E-9A34-0F6C2D1E5B7A"
        let appended = try journal.appendCollecting([.sample(exported), .sample(native)], source: "history")
        // What the live feed hands out says the same as what is read back.
        #expect(appended.entries.map(\.isFirstOfId) == [true, false])
        var changed = exported
        changed.metadata = [MetadataEntry("HKMetadataKeyHeartRateMotionContext", .number(1))]
        try journal.append([.sample(changed), .tombstone(Tombstone(ids: [native.id]))], source: "phone")
        let stored = try journal.entries(after: 0, limit: 10)
        // A fingerprint id new to the journal is the first of its id; a producer's own id never
        // counts (it may come back at another start), nor a change, nor a tombstone.
        #expect(stored.map(\.isFirstOfId) == [true, false, false, false])
        #expect(try stored.map { try $0.decoded().isFirstOfId } == [true, false, false, false])
    }

    @Test func takingTheItemsAppendsWhatCopyingThemDoes() throws {
        var items: [HealthItem] = (0..<50).map { .sample(heartRate(60 + Double($0 % 7), at: Int64($0))) }
        items.append(.tombstone(Tombstone(ids: ["gone"])))
        items.append(items[3])
        let copied = try Journal(stateDirectory: makeTemporaryDirectory()).appendCollecting(items, source: "history")
        var taken = items
        let moved = try Journal(stateDirectory: makeTemporaryDirectory()).appendCollecting(taking: &taken, source: "history")
        #expect(taken.isEmpty)
        #expect(moved.result == copied.result)
        #expect(moved.entries == copied.entries)
        #expect(moved.entries.count == 51)
        #expect(moved.entries.map(\.item) == Array(items[..<51]))
    }

    @Test func sameReadingUnderTwoIdsIsAnAliasAndTombstonesReachBoth() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        let exported = heartRate(72, at: 10)
        var pushed = exported
        pushed.id = "1E9B4C1A-3F2D-4C8E-9B7A-2D5E8F1A6C3B"
        try journal.append([.sample(exported)], source: "history")
        let result = try journal.append([.sample(pushed)], source: "phone")
        #expect(result.aliased == 1)
        #expect(result.entriesWritten == 0)

        // The phone deletes the sample by its HealthKit UUID: the tombstone names the exported id too.
        let deletion = try journal.append([.tombstone(Tombstone(ids: [pushed.id]))], source: "phone")
        #expect(deletion.deletedIds == 1)
        let stored = try journal.entries(after: 1, limit: 10)
        guard case .tombstone(let tombstone) = try stored[0].decoded().item else {
            Issue.record("expected a tombstone"); return
        }
        #expect(Set(tombstone.ids) == [pushed.id, exported.id])

        // The same tombstone again records nothing new.
        #expect(try journal.append([.tombstone(Tombstone(ids: [pushed.id]))], source: "phone").entriesWritten == 0)
        // The pushed id sent again with another value at its start stays deleted, as an id stored
        // under its own name does; at another start it is another sample.
        var edited = pushed
        edited.value = 80
        let again = try journal.append([.sample(edited)], source: "phone")
        #expect(again.entriesWritten == 0 && again.duplicateCount == 1)
        var moved = edited
        moved.start = Timestamp(epochSeconds: moved.start.epochMilliseconds / 1000 + 60)
        moved.end = moved.start
        #expect(try journal.append([.sample(moved)], source: "phone").newCount == 1)
    }

    @Test func pushedFirstThenExportedIsAnAliasToo() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        let exported = heartRate(72, at: 10)
        var pushed = exported
        pushed.id = "PUSHED-1"
        try journal.append([.sample(pushed)], source: "phone")
        let result = try journal.append([.sample(exported)], source: "history")
        #expect(result.aliased == 1)
        #expect(try journal.head() == 1)
    }

    /// Two producer ids for one reading are two samples (two users' equal readings, two foods of
    /// equal energy): neither is an alias, and a tombstone for one leaves the other. A record
    /// without an id of its own that comes later is still the first one's alias.
    @Test func twoProducerIdsOfOneReadingAreTwoSamples() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        let exported = heartRate(72, at: 10)
        var alice = exported
        alice.id = "5A000000-0000-4000-8000-000000000001"
        alice.userId = "alice"
        var bob = exported
        bob.id = "5B000000-0000-4000-8000-000000000002"
        bob.userId = "bob"
        #expect(try journal.append([.sample(alice)], source: "phone").entriesWritten == 1)
        let second = try journal.append([.sample(bob)], source: "phone")
        #expect(second.entriesWritten == 1 && second.aliased == 0)
        try journal.append([.tombstone(Tombstone(ids: [bob.id], userId: "bob"))], source: "phone")
        guard case .tombstone(let tombstone) = try journal.entries(after: 2, limit: 1)[0].decoded().item else {
            Issue.record("expected a tombstone"); return
        }
        #expect(tombstone.ids == [bob.id])
        #expect(try journal.append([.sample(exported)], source: "history").aliased == 1)
    }

    /// A Health Auto Export point (its id derived from its period: version 8) and a Pulso push's
    /// reading of equal value at its date are two samples, either way round: the period's value
    /// moves on as the period fills (a minute's average heart rate), and taken for the Pulso reading
    /// it replaced that reading in every store; a deletion of the Pulso reading names it alone.
    @Test func aHealthAutoExportPeriodAndAnEqualPulsoReadingAreTwoSamples() throws {
        for haeFirst in [true, false] {
            let journal = try Journal(stateDirectory: makeTemporaryDirectory())
            var hae = heartRate(72, at: 10)
            hae.id = "A64D36E6-28F2-8A1D-8E2C-865173954A63"
            hae.userId = "alice"
            var pulso = hae
            pulso.id = "7B00F3C2-0000-4000-8000-000000000009"
            let (first, second) = haeFirst ? (hae, pulso) : (pulso, hae)
            #expect(try journal.append([.sample(first)], source: "phone").entriesWritten == 1)
            let again = try journal.append([.sample(second)], source: "phone")
            #expect(again.entriesWritten == 1 && again.aliased == 0, "HAE first: \(haeFirst)")
            var movedOn = hae
            movedOn.value = 75
            #expect(try journal.append([.sample(movedOn)], source: "phone").entriesWritten == 1, "HAE first: \(haeFirst)")
            #expect(try !journal.isDeleted(pulso), "HAE first: \(haeFirst)")
            let deletion = try journal.appendCollecting([.tombstone(Tombstone(ids: [pulso.id], userId: "alice"))], source: "phone")
            guard case .tombstone(let tombstone) = deletion.entries.first?.item else { Issue.record("no tombstone"); return }
            #expect(tombstone.ids == [pulso.id], "HAE first: \(haeFirst)")
            #expect(try !journal.isDeleted(movedOn), "HAE first: \(haeFirst)")
        }
    }

    /// A UUID in lower or mixed case is stored in upper case, so a tombstone in either case
    /// names the same sample in every sink; other ids keep their case.
    @Test func uuidsAreStoredInUpperCase() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        var lower = heartRate(60, at: 1)
        lower.id = "7a000000-0000-4000-8000-00000000000b"
        var other = heartRate(61, at: 2)
        other.id = "garmin-abc-def"
        let appended = try journal.appendCollecting([.sample(lower), .sample(other)], source: "phone")
        #expect(appended.entries.compactMap { if case .sample(let s) = $0.item { s.id } else { nil } }
                    == ["7A000000-0000-4000-8000-00000000000B", "garmin-abc-def"])
        lower.value = 62
        #expect(try journal.append([.sample(lower)], source: "phone").changed[.quantity] == 1)
        let deletion = try journal.appendCollecting([.tombstone(Tombstone(ids: ["7A000000-0000-4000-8000-00000000000b"]))],
                                                    source: "phone")
        guard case .tombstone(let tombstone) = deletion.entries.first?.item else { Issue.record("no tombstone"); return }
        #expect(tombstone.ids == ["7A000000-0000-4000-8000-00000000000B"])
    }

    @Test func pruneKeepsWhatASinkHasNotPassedAndWhatRetainKeeps() throws {
        let directory = makeTemporaryDirectory()
        let journal = try Journal(stateDirectory: directory)
        let old = Date(timeIntervalSinceNow: -40 * 86_400)
        try journal.append((0..<10).map { .sample(heartRate(60, at: Int64($0))) }, source: "s", receivedAt: old)
        try journal.append((10..<20).map { .sample(heartRate(60, at: Int64($0))) }, source: "s")
        try journal.setCursor(sink: "a", to: 20, written: 20)
        try journal.setCursor(sink: "b", to: 5, written: 5)
        // b has passed 5 entries only.
        #expect(try journal.prune(sinks: ["a", "b"], retainSeconds: 30 * 86_400) == 5)
        try journal.setCursor(sink: "b", to: 20, written: 15)
        // The 10 recent entries stay for 30 days although every sink passed them.
        #expect(try journal.prune(sinks: ["a", "b"], retainSeconds: 30 * 86_400) == 5)
        #expect(try journal.oldestRetained() == 11)
        #expect(try journal.prune(sinks: ["a", "b"], retainSeconds: nil) == 0)
        // Sequences are never reused after pruning, and pruned samples are still known.
        #expect(try journal.append([.sample(heartRate(60, at: 0))], source: "s").duplicateCount == 1)
        try journal.append([.sample(heartRate(61, at: 0))], source: "s")
        #expect(try journal.head() == 21)
    }

    /// A new journal of two kinds from two sources: ten heart rates from `watch` (1–10), five step
    /// counts from `phone` (11–15), ten more heart rates from `watch` (16–25).
    static func heartRatesAroundSteps() throws -> Journal {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        func steps(at second: Int64) -> HealthItem {
            var s = heartRate(0, at: second)
            s.type = "HKQuantityTypeIdentifierStepCount"
            s.value = 12
            s.unit = "count"
            s.id = Fingerprint.id(of: s)
            return .sample(s)
        }
        try journal.append((0..<10).map { .sample(heartRate(60, at: Int64($0))) }, source: "watch")  // 1–10
        try journal.append((0..<5).map { steps(at: Int64($0)) }, source: "phone")                   // 11–15
        try journal.append((10..<20).map { .sample(heartRate(60, at: Int64($0))) }, source: "watch") // 16–25
        return journal
    }

    /// A sink lacks pruned entries only where what was pruned there is of a kind its routes select:
    /// the kinds pruned (type and source) are recorded with the span of sequences each had. A sink
    /// of a type never pruned was said to lack the whole range (`status`, its worker's warning).
    /// Tombstones go to every sink; entries pruned before the kinds were recorded (by an older
    /// healthrouter) are lacked whole.
    @Test func aPrunedGapIsWhereTheSinksRoutesSelectWhatWasPruned() throws {
        let journal = try Self.heartRatesAroundSteps()
        let heart = "HKQuantityTypeIdentifierHeartRate", step = "HKQuantityTypeIdentifierStepCount"
        try journal.setCursor(sink: "a", to: 25, written: 25)
        #expect(try journal.prune(sinks: ["a"], retainSeconds: 0, now: Date(timeIntervalSinceNow: 1)) == 25)
        func lacking(_ ranges: [(first: Int64, last: Int64)], _ selects: @escaping (String, String) -> Bool) throws -> [[Int64]] {
            try journal.prunedSelected(ranges, selectedBy: selects).map { [$0.first, $0.last] }
        }
        #expect(try lacking([(1, 25)]) { _, _ in true } == [[1, 25]])
        #expect(try lacking([(1, 25)]) { type, _ in type == heart } == [[1, 25]])  // its first to its last
        #expect(try lacking([(1, 25)]) { type, _ in type == step } == [[11, 15]])
        #expect(try lacking([(12, 20)]) { type, _ in type == step } == [[12, 15]])
        #expect(try lacking([(1, 25)]) { type, source in type == step && source == "watch" } == [])
        #expect(try lacking([(1, 25)]) { _, _ in false } == [])
        // A tombstone pruned is lacked by every sink.
        try journal.append([.tombstone(Tombstone(ids: [heartRate(60, at: 0).id]))], source: "phone")  // 26
        #expect(try journal.head() == 26)
        try journal.setCursor(sink: "a", to: 26, written: 26)
        #expect(try journal.prune(sinks: ["a"], retainSeconds: 0, now: Date(timeIntervalSinceNow: 1)) == 1)
        #expect(try lacking([(1, 26)]) { _, _ in false } == [[26, 26]])
        #expect(try lacking([(1, 26)]) { type, _ in type == step } == [[11, 15], [26, 26]])
        // Pruned by a build that recorded no kinds: those entries are lacked whole, the later ones by kind.
        try journal.database.execute("DELETE FROM meta WHERE key IN ('pruned_kinds', 'pruned_kinds_from')")
        #expect(try lacking([(1, 26)]) { _, _ in false } == [[1, 26]])
        try journal.append((20..<25).map { .sample(heartRate(60, at: Int64($0))) }, source: "watch") // 27–31
        try journal.setCursor(sink: "a", to: 31, written: 31)
        #expect(try journal.prune(sinks: ["a"], retainSeconds: 0, now: Date(timeIntervalSinceNow: 1)) == 5)
        #expect(try lacking([(1, 31)]) { _, _ in false } == [[1, 26]])
        #expect(try lacking([(1, 31)]) { type, _ in type == heart } == [[1, 31]])
        #expect(try lacking([(20, 31)]) { type, _ in type == step } == [[20, 26]])
        // A record this build cannot read is no record: what it held counts whole, from then on by kind.
        try journal.database.execute("UPDATE meta SET value = 'damaged' WHERE key = 'pruned_kinds'")
        #expect(try lacking([(1, 31)]) { _, _ in false } == [[1, 31]])
        try journal.append((25..<30).map { .sample(heartRate(60, at: Int64($0))) }, source: "watch") // 32–36
        try journal.setCursor(sink: "a", to: 36, written: 36)
        #expect(try journal.prune(sinks: ["a"], retainSeconds: 0, now: Date(timeIntervalSinceNow: 1)) == 5)
        #expect(try lacking([(1, 36)]) { _, _ in false } == [[1, 31]])
        #expect(try lacking([(1, 36)]) { type, _ in type == heart } == [[1, 36]])
    }

    /// Entries pruned after the kinds were recorded by a healthrouter that records none (an older
    /// one, run on this journal since: the layout is the same) are lacked whole, by every sink,
    /// also once this build prunes again: they were of no kind recorded, and a sink of their type
    /// was told it lacked nothing.
    @Test func entriesPrunedUnrecordedAfterARecordAreLackedWhole() throws {
        let journal = try Self.heartRatesAroundSteps()
        let heart = "HKQuantityTypeIdentifierHeartRate", step = "HKQuantityTypeIdentifierStepCount"
        try journal.setCursor(sink: "a", to: 10, written: 10)
        #expect(try journal.prune(sinks: ["a"], retainSeconds: 0, now: Date(timeIntervalSinceNow: 1)) == 10)
        func lacking(_ ranges: [(first: Int64, last: Int64)], _ selects: @escaping (String, String) -> Bool) throws -> [[Int64]] {
            try journal.prunedSelected(ranges, selectedBy: selects).map { [$0.first, $0.last] }
        }
        #expect(try lacking([(1, 10)]) { type, _ in type == step } == [])
        // An older healthrouter's prune: it deletes, records nothing.
        try journal.database.execute("DELETE FROM entries WHERE seq <= 15")
        #expect(try lacking([(1, 15)]) { type, _ in type == step } == [[11, 15]])
        #expect(try lacking([(1, 15)]) { _, _ in false } == [[11, 15]])
        // This build prunes again: the entries between stay lacked whole.
        try journal.setCursor(sink: "a", to: 25, written: 25)
        #expect(try journal.prune(sinks: ["a"], retainSeconds: 0, now: Date(timeIntervalSinceNow: 1)) == 10)
        #expect(try lacking([(1, 25)]) { type, _ in type == step } == [[11, 15]])
        #expect(try lacking([(1, 25)]) { _, _ in false } == [[11, 15]])
        #expect(try lacking([(1, 25)]) { type, _ in type == heart } == [[1, 25]])
    }

    @Test func runsOfNewAndKnownSamplesAreToldApartEitherWay() throws {
        // New samples are inserted first and looked up only on a conflict; after a known one the
        // lookup comes first. Every switch between the two must count and flag alike.
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        func sample(_ second: Int64, device: String? = nil) -> HealthItem {
            var s = heartRate(60, at: second)
            s.device = device
            return .sample(s)
        }
        let first = try journal.appendCollecting([sample(1), sample(2), sample(3)], source: "s")
        #expect(first.result.newCount == 3)
        #expect(first.entries.map(\.isFirstOfId) == [true, true, true])
        // Known, new (after a known one), new, changed (after a new one: a refused insert), known, new.
        let second = try journal.appendCollecting(
            [sample(1), sample(4), sample(5), sample(2, device: "Watch 2"), sample(3), sample(6)], source: "s")
        #expect(second.result.newCount == 3)
        #expect(second.result.duplicateCount == 2)
        #expect(second.result.changedCount == 1)
        #expect(second.entries.map(\.sequence) == [4, 5, 6, 7])
        #expect(second.entries.map(\.isFirstOfId) == [true, true, false, true])
        // The change is stored: the same again is known.
        let third = try journal.append([sample(2, device: "Watch 2"), sample(6)], source: "s")
        #expect(third.duplicateCount == 2)
        #expect(third.newCount == 0)
    }

    @Test func pruneTakesTheOldEntriesBeforeTheFirstYoungOneAndNothingAfterIt() throws {
        let journal = try Journal(stateDirectory: makeTemporaryDirectory())
        let old = Date(timeIntervalSinceNow: -40 * 86_400)
        try journal.append((0..<10).map { .sample(heartRate(60, at: Int64($0))) }, source: "s", receivedAt: old)
        try journal.append((10..<15).map { .sample(heartRate(60, at: Int64($0))) }, source: "s")
        // A clock set back: old entries after young ones.
        try journal.append((15..<20).map { .sample(heartRate(60, at: Int64($0))) }, source: "s", receivedAt: old)
        try journal.setCursor(sink: "a", to: 20, written: 20)
        #expect(try journal.prune(sinks: ["a"], retainSeconds: 30 * 86_400) == 10)
        #expect(try journal.oldestRetained() == 11)
        #expect(try journal.counts().entries == 10)
        // Nothing is old before the first young entry any more: nothing goes.
        #expect(try journal.prune(sinks: ["a"], retainSeconds: 30 * 86_400) == 0)
        // Once the young entries are old too, everything every sink passed goes.
        #expect(try journal.prune(sinks: ["a"], retainSeconds: 30 * 86_400, now: Date(timeIntervalSinceNow: 31 * 86_400)) == 10)
        #expect(try journal.oldestRetained() == nil)
    }
}
