import Foundation
import TestSupport
import Testing
@testable import HealthRouterCore

@Suite struct ConfigValidationTests {
    private func parse(_ yaml: String, _ environment: [String: String] = [:]) throws(ConfigError) -> HealthRouterConfig {
        try HealthRouterConfig.parse(yaml: yaml, file: "hr.yaml", environment: environment)
    }

    @Test func designExampleParses() throws {
        let config = try parse("""
            state_directory: ./healthrouter-data
            journal:
              retain: 30d                      # or: forever
            sources:
              phone:
                type: http_push
                listen: 127.0.0.1:8787
                users:
                  alice: { token: "${ALICE_TOKEN}" }
              history:
                type: apple_health_export
                path: ~/Downloads/export.zip
            sinks:
              local:
                type: sqlite
                path: ./healthrouter-data/health.sqlite
              lake:
                type: ndjson
                directory: ./healthrouter-data/ndjson
              tsdb:
                type: timescaledb
                url: "${TIMESCALE_URL}"
              supa:
                type: postgres
                url: "${SUPABASE_DB_URL}"
                user_id: 3b241101-e2bb-4255-8caf-4136c566a962
              mirror:
                type: http
                url: https://health.example.org
                token: "${MIRROR_TOKEN}"
            routes:
              - types: [sleep, workouts]
                to: [tsdb, supa]
              - types: ["HKQuantityTypeIdentifier*"]
                from: [phone]
                to: [tsdb]
              - types: ["*"]
                to: [local, lake, mirror]
            """, ["ALICE_TOKEN": "t", "TIMESCALE_URL": "postgres://x", "SUPABASE_DB_URL": "postgres://y", "MIRROR_TOKEN": "m"])
        #expect(config.stateDirectory == "./healthrouter-data")
        #expect(config.journal.retain == .duration(.days(30)))
        #expect(config.sources.map(\.name) == ["phone", "history"])
        #expect(config.sources.map(\.type) == ["http_push", "apple_health_export"])
        #expect(config.sinks.map(\.name) == ["local", "lake", "tsdb", "supa", "mirror"])
        #expect(config.routes.count == 3)
        #expect(config.routes[1].from == ["phone"])
        #expect(config.routes[1].path == "routes[1]")
        #expect(config.routes[1].location?.line == 34)
        #expect(config.warnings.isEmpty)
        #expect(config.file == "hr.yaml")

        let phone = try #require(config.source(named: "phone"))
        #expect(phone.path == "sources.phone")
        #expect(phone.location.line == 5)
        #expect(phone.options.entries?.map(\.key) == ["listen", "users"])
        #expect(phone.options["users"]?["alice"]?["token"]?.scalar == "t")
        #expect(config.sink(named: "tsdb")?.options["url"]?.scalar == "postgres://x")
    }

    @Test func defaultsWhenKeysAreAbsent() throws {
        let config = try parse("")
        #expect(config.stateDirectory == "./healthrouter-data")
        #expect(config.journal.retain == .default)
        #expect(config.sources.isEmpty && config.sinks.isEmpty && config.routes.isEmpty)
    }

    @Test func sinksWithoutRoutesGetTheDefaultRoute() throws {
        for routes in ["", "routes: []\n", "routes:\n"] {
            let config = try parse("sinks:\n  a: { type: sqlite, path: x }\n  b: { type: ndjson, directory: y }\n" + routes)
            #expect(config.routes.count == 1)
            let route = try #require(config.routes.first)
            #expect(route.isDefault)
            #expect(route.types == ["*"])
            #expect(route.from == nil)
            #expect(route.to == ["a", "b"])
            #expect(config.warnings.isEmpty)
        }
    }

    @Test func unknownTopLevelKeySuggests() {
        let error = #expect(throws: ConfigError.self) { try parse("sink:\n  a: { type: sqlite }\n") }
        #expect(error?.path == "sink")
        #expect(error?.suggestion == "did you mean 'sinks'?")
        let nested = #expect(throws: ConfigError.self) { try parse("journal:\n  retian: 3d\n") }
        #expect(nested?.path == "journal.retian")
        #expect(nested?.line == 2)
        #expect(nested?.suggestion == "did you mean 'retain'?")
        let underscore = #expect(throws: ConfigError.self) { try parse("stateDirectory: x\n") }
        #expect(underscore?.suggestion == "did you mean 'state_directory'?")
    }

    @Test func pluginOptionsDecodeWithFullPaths() throws {
        struct SQLiteOptions: Decodable { var path: String }
        let config = try parse("sinks:\n  local:\n    type: sqlite\n    pth: x\n")
        let sink = try #require(config.sink(named: "local"))
        let error = #expect(throws: ConfigError.self) { try sink.decodeOptions(SQLiteOptions.self) }
        #expect(error?.description == "hr.yaml:4:5: sinks.local.pth: unknown key\n  hint: did you mean 'path'?")
    }

    @Test func pluginWithoutTypeOrWithBadName() {
        let missing = #expect(throws: ConfigError.self) { try parse("sinks:\n  local:\n    path: x\n") }
        #expect(missing?.path == "sinks.local")
        #expect(missing?.line == 2)
        #expect(missing?.message == "missing 'type'")
        let empty = #expect(throws: ConfigError.self) { try parse("sinks:\n  local:\n") }
        #expect(empty?.message == "missing 'type'")
        let list = #expect(throws: ConfigError.self) { try parse("sinks:\n  local: [sqlite]\n") }
        #expect(list?.message == "expected the sink's settings, found a list")
        let name = #expect(throws: ConfigError.self) { try parse("sinks:\n  My Sink: { type: sqlite }\n") }
        #expect(name?.path == "sinks.My Sink")
        #expect(name?.suggestion?.contains("'my_sink'") == true)
        let section = #expect(throws: ConfigError.self) { try parse("sources: [a, b]\n") }
        #expect(section?.path == "sources")
    }

    @Test func routesToMissingSinksAndSources() {
        let sinks = "sources:\n  phone: { type: http_push }\nsinks:\n  local: { type: sqlite }\n  lake: { type: ndjson }\n"
        let sink = #expect(throws: ConfigError.self) { try parse(sinks + "routes:\n  - types: [\"*\"]\n    to: [local, lak]\n") }
        #expect(sink?.path == "routes[0].to[1]")
        #expect(sink?.line == 8)
        #expect(sink?.column == 17)
        #expect(sink?.message == "no sink named 'lak'")
        #expect(sink?.suggestion == "did you mean 'lake'?")
        let source = #expect(throws: ConfigError.self) {
            try parse(sinks + "routes:\n  - types: [\"*\"]\n    from: pone\n    to: local\n")
        }
        #expect(source?.path == "routes[0].from[0]")
        #expect(source?.suggestion == "did you mean 'phone'?")
        let noSinks = #expect(throws: ConfigError.self) { try parse("routes:\n  - types: [\"*\"]\n    to: [x]\n") }
        #expect(noSinks?.suggestion == "define it under 'sinks:'")
        let emptyTo = #expect(throws: ConfigError.self) { try parse(sinks + "routes:\n  - types: [\"*\"]\n    to: []\n") }
        #expect(emptyTo?.path == "routes[0].to")
        let missingTo = #expect(throws: ConfigError.self) { try parse(sinks + "routes:\n  - types: [\"*\"]\n") }
        #expect(missingTo?.path == "routes[0].to")
        #expect(missingTo?.message == "missing required key")
        let notAList = #expect(throws: ConfigError.self) { try parse(sinks + "routes:\n  all: local\n") }
        #expect(notAList?.path == "routes")
    }

    @Test func typeSelectorsAreCheckedAndUnknownOnesWarned() throws {
        let sinks = "sinks:\n  local: { type: sqlite }\n"
        let bad = #expect(throws: ConfigError.self) { try parse(sinks + "routes:\n  - types: [sleep, \"heart rate\"]\n    to: local\n") }
        #expect(bad?.path == "routes[0].types[1]")
        #expect(bad?.line == 4)
        let empty = #expect(throws: ConfigError.self) { try parse(sinks + "routes:\n  - types: []\n    to: local\n") }
        #expect(empty?.path == "routes[0].types")

        let config = try parse(sinks + """
            routes:
              - types: [heartrate, HKQuantityTypeIdentifierSomethingNew, "HKCategory*", sleep, heartRate, other]
                to: local
            """)
        #expect(config.warnings.map(\.path) == ["routes[0].types[0]", "routes[0].types[1]"])
        #expect(config.warnings[0].suggestion == "did you mean 'heartRate'?")
        #expect(config.warnings[0].location?.line == 4)
        #expect(config.warnings[0].description.hasPrefix("hr.yaml:4:"))
    }

    @Test func unusedSinksAndSourcesAreWarned() throws {
        let config = try parse("""
            sources:
              phone: { type: http_push }
              history: { type: apple_health_export }
            sinks:
              local: { type: sqlite }
              lake: { type: ndjson }
            routes:
              - types: sleep
                from: history
                to: local
            """)
        #expect(config.warnings.map(\.path) == ["sinks.lake", "sources.phone"])
    }

    @Test func environmentErrorsSurfaceFromParse() {
        let error = #expect(throws: ConfigError.self) {
            try parse("sinks:\n  tsdb:\n    type: timescaledb\n    url: \"${TIMESCALE_URL}\"\n")
        }
        #expect(error?.description.hasPrefix("hr.yaml:4:10: sinks.tsdb.url: environment variable 'TIMESCALE_URL' is not set") == true)
    }

    @Test func checkPluginTypes() throws {
        let config = try parse("sinks:\n  local: { type: sqlit }\n")
        let error = #expect(throws: ConfigError.self) {
            try config.checkPluginTypes(sources: ["apple_health_export"], sinks: ["sqlite", "ndjson"])
        }
        #expect(error?.path == "sinks.local.type")
        #expect(error?.line == 2)
        #expect(error?.message == "unknown sink type 'sqlit'")
        #expect(error?.suggestion == "did you mean 'sqlite'?")
        try HealthRouterConfig.parse(yaml: "sinks:\n  l: { type: sqlite }\n", environment: [:])
            .checkPluginTypes(sources: [], sinks: ["sqlite"])
    }

    @Test func embeddedDefault() throws {
        let config = HealthRouterConfig.embeddedDefault(stateDirectory: "/var/lib/hr ${X} \"q\"/")
        #expect(config.file == nil)
        #expect(config.stateDirectory == "/var/lib/hr ${X} \"q\"/")
        #expect(config.sources.isEmpty)
        #expect(config.sinks.map(\.name) == ["local", "lake"])
        #expect(config.sinks.map(\.type) == ["sqlite", "ndjson"])
        #expect(config.sink(named: "local")?.options["path"]?.scalar == "/var/lib/hr ${X} \"q\"/health.sqlite")
        #expect(config.sink(named: "lake")?.options["directory"]?.scalar == "/var/lib/hr ${X} \"q\"/ndjson")
        #expect(config.routes.map(\.types) == [["*"]])
        #expect(config.routes.map(\.to) == [["local", "lake"]])
        #expect(config.journal.retain == .duration(.days(30)))
        #expect(config.warnings.isEmpty)

        let plain = HealthRouterConfig.embeddedDefault()
        #expect(plain.sink(named: "local")?.options["path"]?.scalar == "./healthrouter-data/health.sqlite")
    }

    @Test func loadReadsFilesAndReportsMissingOnes() throws {
        let directory = URL(fileURLWithPath: TestScratch.path).appendingPathComponent("config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("hr.yaml").path
        try Data("sinks:\n  local:\n    type: sqlite\n    path: ${DB:-x.sqlite}\n".utf8).write(to: URL(fileURLWithPath: file))
        let config = try HealthRouterConfig.load(path: file, environment: [:])
        #expect(config.file == file)
        #expect(config.sinks.first?.location.file == file)
        #expect(config.sinks.first?.options["path"]?.scalar == "x.sqlite")

        let missing = #expect(throws: ConfigError.self) { try HealthRouterConfig.load(path: file + ".nope", environment: [:]) }
        #expect(missing?.message == "config file not found")
        #expect(missing?.file == file + ".nope")
    }

    /// A file past 16 MiB is no config: `/dev/zero` given by mistake is refused after 16 MiB
    /// read (it took 8 GB in 10 s), and so is a large file, without reading it all.
    @Test func aConfigPast16MiBIsRefused() throws {
        let endless = #expect(throws: ConfigError.self) { try HealthRouterConfig.load(path: "/dev/zero", environment: [:]) }
        #expect(endless?.message == "is larger than 16 MiB: not a config file")
        let directory = URL(fileURLWithPath: TestScratch.path).appendingPathComponent("config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let large = directory.appendingPathComponent("large.yaml").path
        try Data(repeating: UInt8(ascii: "#"), count: (16 << 20) + 1).write(to: URL(fileURLWithPath: large))
        #expect(throws: ConfigError.self) { try HealthRouterConfig.load(path: large, environment: [:]) }
        let comment = directory.appendingPathComponent("comment.yaml").path
        try Data(repeating: UInt8(ascii: "#"), count: 16 << 20).write(to: URL(fileURLWithPath: comment))
        #expect(try HealthRouterConfig.load(path: comment, environment: [:]).sinks.isEmpty)
    }
}
