import Testing
@testable import HealthRouterCore

@Suite struct RouteTableTests {
    private let heartRate = "HKQuantityTypeIdentifierHeartRate"
    private let steps = "HKQuantityTypeIdentifierStepCount"
    private let sleep = "HKCategoryTypeIdentifierSleepAnalysis"
    private let workout = "HKWorkoutTypeIdentifier"
    private let unknown = "HKQuantityTypeIdentifierSomethingNew"

    private func table(_ routes: String, sinks: [String] = ["a", "b", "c"], sources: [String] = ["phone", "history"]) throws -> RouteTable {
        var yaml = "sources:\n" + sources.map { "  \($0): { type: t }\n" }.joined()
        yaml += "sinks:\n" + sinks.map { "  \($0): { type: t }\n" }.joined()
        yaml += routes
        return RouteTable(config: try HealthRouterConfig.parse(yaml: yaml, environment: [:]))
    }

    /// Whether one sink receives everything another does: by type, by source, and for types the
    /// registry does not know (what a glob or `*` selects).
    @Test func oneSinkSelectsEverythingAnotherDoes() throws {
        let routes = try table("""
            routes:
              - types: ["*"]
                to: [a]
              - types: [sleep, heartRate]
                to: [b]
              - types: [heartRate]
                from: [phone]
                to: [c]
              - types: ["HKQuantityType*"]
                to: [c]
            """)
        #expect(routes.selectsEverything("a", of: "b") && routes.selectsEverything("a", of: "c"))
        #expect(!routes.selectsEverything("b", of: "a"))     // b has no steps
        #expect(!routes.selectsEverything("b", of: "c"))     // c has every quantity type, known or not
        #expect(!routes.selectsEverything("c", of: "b"))     // b has sleep
        #expect(routes.selectsEverything("b", of: "b"))
        let unknownOnly = try table("routes:\n  - types: [\"*\"]\n    to: [a, b]\n  - types: [heartRate, steps, sleep]\n    to: [c]\n")
        #expect(!unknownOnly.selectsEverything("c", of: "a"))
        // Types a route names exactly that the registry does not list as identifiers: the profile,
        // a stored name, an unknown identifier.
        for name in ["Me", "HKContactsPrescription", "HKQuantityTypeIdentifierSomethingNew"] {
            let named = try table("routes:\n  - types: [sleep]\n    to: [a, b]\n  - types: [\(name)]\n    to: [b]\n")
            #expect(!named.selectsEverything("a", of: "b"), "\(name)")
            #expect(named.selectsEverything("b", of: "a"), "\(name)")
        }
    }

    @Test func starSelectsEverythingIncludingUnknownTypes() throws {
        let routes = try table("routes:\n  - types: [\"*\"]\n    to: [b, a]\n")
        for type in [heartRate, sleep, unknown, "whatever"] {
            #expect(routes.sinks(forType: type, source: "phone") == ["a", "b"])
        }
    }

    @Test func shortKeyAndIdentifier() throws {
        let routes = try table("routes:\n  - types: [heartRate]\n    to: a\n  - types: [\(steps)]\n    to: b\n")
        #expect(routes.sinks(forType: heartRate, source: "phone") == ["a"])
        #expect(routes.sinks(forType: steps, source: "phone") == ["b"])
        #expect(routes.sinks(forType: "stepCount", source: "phone") == ["b"])
        #expect(routes.sinks(forType: sleep, source: "phone") == [])
    }

    @Test func groups() throws {
        let routes = try table("routes:\n  - types: [sleep, workouts]\n    to: a\n  - types: [other]\n    to: c\n")
        #expect(routes.sinks(forType: sleep, source: "phone") == ["a"])
        #expect(routes.sinks(forType: workout, source: "phone") == ["a"])
        #expect(routes.sinks(forType: heartRate, source: "phone") == [])
        #expect(routes.sinks(forType: unknown, source: "phone") == ["c"])
    }

    @Test func globsOnIdentifierAndShortKey() throws {
        let routes = try table("""
            routes:
              - types: ["HKQuantityTypeIdentifier*"]
                to: a
              - types: ["heart*", "s?eepAnalysis"]
                to: b
              - types: ["*Count"]
                to: c
            """)
        #expect(routes.sinks(forType: heartRate, source: "phone") == ["a", "b"])
        #expect(routes.sinks(forType: steps, source: "phone") == ["a", "c"])
        #expect(routes.sinks(forType: unknown, source: "phone") == ["a"])
        #expect(routes.sinks(forType: sleep, source: "phone") == ["b"])
    }

    /// What the export reader stores under the export's own names (`ActivitySummary`,
    /// `HKGlassesPrescription`, `Me`) is routed by those names and as the registry type they stand
    /// for (key, identifier, group): `types: [activitySummary]` delivered nothing.
    @Test func typesStoredUnderTheExportsNamesAreRoutedByThemAndAsTheirType() throws {
        let routes = try table("""
            routes:
              - types: [activitySummary]
                to: a
              - types: [visionPrescription, HKActivitySummaryTypeIdentifier]
                to: b
              - types: [Me, "Activity*"]
                to: c
            """)
        #expect(routes.sinks(forType: "ActivitySummary", source: "history") == ["a", "b", "c"])
        #expect(routes.sinks(forType: "HKGlassesPrescription", source: "history") == ["b"])
        #expect(routes.sinks(forType: "HKContactsPrescription", source: "history") == ["b"])
        #expect(routes.sinks(forType: "Me", source: "history") == ["c"])
        let groups = try table("routes:\n  - types: [activity]\n    to: a\n  - types: [clinical]\n    to: b\n  - types: [other]\n    to: c\n")
        #expect(groups.sinks(forType: "ActivitySummary", source: "history") == ["a"])
        #expect(groups.sinks(forType: "HKGlassesPrescription", source: "history") == ["b"])
        #expect(groups.sinks(forType: "Me", source: "history") == ["c"])
    }

    /// `--types` takes those names as known (they were refused, or told to mean `activitySummary`),
    /// and the registry does not map them, so the stored type and the fingerprint id stay as they were.
    @Test func typesStoredUnderTheExportsNamesAreKnownToFiltersAndKeepTheirStoredType() throws {
        for name in ["ActivitySummary", "Me", "HKGlassesPrescription", "activitySummary", "visionPrescription"] {
            #expect(SampleFilter(types: [name]).unknownTypes.isEmpty, "\(name)")
        }
        #expect(SampleFilter(types: ["activitySummary"]).selects(type: "ActivitySummary"))
        #expect(SampleFilter(types: ["ActivitySummary"]).selects(type: "ActivitySummary"))
        #expect(!SampleFilter(types: ["ActivitySummary"]).selects(type: "Me"))
        #expect(SampleFilter(types: ["Me"]).selects(type: "Me"))
        #expect(SampleFilter(types: ["visionPrescription"]).selects(type: "HKGlassesPrescription"))
        for name in ["ActivitySummary", "Me", "HKGlassesPrescription", "HKContactsPrescription"] {
            #expect(TypeRegistry.resolve(name) == nil, "\(name)")
            #expect(TypeRegistry.identifier(of: name) == name)
        }
        let day = Sample(id: "", type: "ActivitySummary", kind: .activitySummary,
                         start: Timestamp(epochMilliseconds: 0, utcOffsetSeconds: 0),
                         end: Timestamp(epochMilliseconds: 86_400_000, utcOffsetSeconds: 0), sourceName: "Health")
        #expect(Fingerprint.text(of: day).hasPrefix("ActivitySummary\u{1F}Health\u{1F}0\u{1F}86400\u{1F}"))
    }

    @Test func unknownIdentifierIsRoutableByName() throws {
        let routes = try table("routes:\n  - types: [\(unknown)]\n    to: a\n")
        #expect(routes.sinks(forType: unknown, source: "phone") == ["a"])
        #expect(routes.sinks(forType: heartRate, source: "phone") == [])
    }

    @Test func fromFiltersBySource() throws {
        let routes = try table("""
            routes:
              - types: ["HKQuantityTypeIdentifier*"]
                from: [phone]
                to: [a]
              - types: ["*"]
                to: [c]
            """)
        #expect(routes.sinks(forType: heartRate, source: "phone") == ["a", "c"])
        #expect(routes.sinks(forType: heartRate, source: "history") == ["c"])
        #expect(routes.selects(sink: "a", type: heartRate, source: "phone"))
        #expect(!routes.selects(sink: "a", type: heartRate, source: "history"))
        #expect(!routes.selects(sink: "b", type: heartRate, source: "phone"))
    }

    @Test func designExampleRouting() throws {
        let routes = try table("""
            routes:
              - types: [sleep, workouts]
                to: [tsdb, supa]
              - types: ["HKQuantityTypeIdentifier*"]
                from: [phone]
                to: [tsdb]
              - types: ["*"]
                to: [local, lake, mirror]
            """, sinks: ["local", "lake", "tsdb", "supa", "mirror"])
        #expect(routes.sinks(forType: sleep, source: "history") == ["local", "lake", "tsdb", "supa", "mirror"])
        #expect(routes.sinks(forType: heartRate, source: "phone") == ["local", "lake", "tsdb", "mirror"])
        #expect(routes.sinks(forType: heartRate, source: "history") == ["local", "lake", "mirror"])
        // Cached answers are the same answers.
        #expect(routes.sinks(forType: heartRate, source: "phone") == ["local", "lake", "tsdb", "mirror"])
    }

    @Test func defaultRouteSendsEverythingEverywhere() throws {
        let routes = try table("")
        #expect(routes.sinkNames == ["a", "b", "c"])
        #expect(routes.sinks(forType: unknown, source: "anything") == ["a", "b", "c"])
    }

    @Test func embeddedDefaultRoutesToBothSinks() {
        let routes = RouteTable(config: .embeddedDefault())
        #expect(routes.sinks(forType: heartRate, source: "import") == ["local", "lake"])
    }

    @Test func noRoutesNoSinks() {
        let routes = RouteTable(routes: [], sinkNames: [])
        #expect(routes.sinks(forType: heartRate, source: "phone").isEmpty)
    }

    @Test func globMatcher() {
        func glob(_ pattern: String, _ text: String) -> Bool { TypeSelector.glob(Array(pattern.utf8), matches: Array(text.utf8)) }
        #expect(glob("*", ""))
        #expect(glob("a*b*c", "aXXbYYc"))
        #expect(glob("a*b*c", "abc"))
        #expect(!glob("a*b*c", "aXXbYY"))
        #expect(glob("a?c", "abc"))
        #expect(!glob("a?c", "ac"))
        #expect(glob("*Rate", "HKQuantityTypeIdentifierHeartRate"))
        #expect(!glob("*Rate", "HKQuantityTypeIdentifierHeartRateX"))
        #expect(glob("**a", "a"))
    }

    @Test func concurrentLookupsAgree() async throws {
        let routes = try table("routes:\n  - types: [sleep]\n    to: a\n  - types: [\"*\"]\n    to: b\n")
        let types = [heartRate, steps, sleep, workout, unknown]
        await withTaskGroup(of: Bool.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var ok = true
                    for index in 0..<2000 {
                        let type = types[(index + worker) % types.count]
                        ok = ok && routes.sinks(forType: type, source: "phone") == (type == sleep ? ["a", "b"] : ["b"])
                    }
                    return ok
                }
            }
            for await ok in group { #expect(ok) }
        }
    }
}
