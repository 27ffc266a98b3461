import Foundation
import Testing
@testable import HealthRouterCore

@Suite struct ConfigDurationTests {
    @Test(arguments: [
        ("500ms", 0.5), ("2s", 2), ("10m", 600), ("1h", 3600), ("30d", 2_592_000), ("1w", 604_800),
        ("1h30m", 5400), ("1.5h", 5400), ("0", 0), (" 3s ", 3),
    ])
    func parses(_ text: String, _ seconds: Double) {
        #expect(ConfigDuration(parsing: text)?.seconds == seconds)
    }

    @Test(arguments: ["", "30", "3 days", "-1s", "1y", "s", "1.2.3s", "forever"])
    func rejects(_ text: String) {
        #expect(ConfigDuration(parsing: text) == nil)
    }

    @Test func describesInOneUnit() {
        #expect(ConfigDuration.days(30).description == "30d")
        #expect(ConfigDuration.minutes(90).description == "90m")
        #expect(ConfigDuration.milliseconds(1500).description == "1500ms")
        #expect(ConfigDuration.seconds(2).duration == .seconds(2))
    }

    @Test func decodingErrorSuggestsAUnit() throws {
        struct Options: Decodable { var flush: ConfigDuration }
        let node = try YAMLParser.parse(Array("flush: 30\n".utf8), file: "x.yaml")
        let error = #expect(throws: ConfigError.self) { try ConfigDecoder.decode(Options.self, from: node, path: "sinks.s") }
        #expect(error?.path == "sinks.s.flush")
        #expect(error?.line == 1)
        #expect(error?.message == "expected a duration (500ms, 2s, 10m, 1h, 30d, 1w), found \"30\"")
        #expect(error?.suggestion == "add a unit, e.g. '30s' or '30d'")

        let mapping = try YAMLParser.parse(Array("flush: { seconds: 3 }\n".utf8), file: "x.yaml")
        let shape = #expect(throws: ConfigError.self) { try ConfigDecoder.decode(Options.self, from: mapping, path: "") }
        #expect(shape?.message == "expected a duration (500ms, 2s, 10m, 1h, 30d, 1w), found a mapping")
    }

    /// Durations long enough to overflow what they become (libmicrohttpd's 32-bit seconds,
    /// 64-bit milliseconds) are config errors at their key, not crashes later.
    @Test func aDurationLongerThanAHundredYearsIsAConfigError() throws {
        struct Options: Decodable { var timeout: ConfigDuration }
        let fine = try YAMLParser.parse(Array("timeout: 36525d\n".utf8), file: "x.yaml")
        #expect(try ConfigDecoder.decode(Options.self, from: fine, path: "").timeout == .maximum)
        for text in ["36526d", "7200w", "99999999999999w"] {
            let node = try YAMLParser.parse(Array("timeout: \(text)\n".utf8), file: "x.yaml")
            let error = #expect(throws: ConfigError.self) { try ConfigDecoder.decode(Options.self, from: node, path: "sinks.s") }
            #expect(error?.path == "sinks.s.timeout")
            #expect(error?.line == 1)
            #expect(error?.message == "\(text) is longer than the longest duration a config may give, 100 years (36525d)")
        }
        let retain = #expect(throws: ConfigError.self) {
            try HealthRouterConfig.parse(yaml: "journal:\n  retain: 99999999999w\n", file: "r.yaml", environment: [:])
        }
        #expect(retain?.path == "journal.retain")
        #expect(retain?.suggestion == "to keep entries for good, write 'forever'")
    }

    @Test func retainPolicy() throws {
        #expect(RetainPolicy(parsing: "forever") == .forever)
        #expect(RetainPolicy(parsing: "30d") == .duration(.days(30)))
        #expect(RetainPolicy(parsing: "never") == nil)
        #expect(RetainPolicy.default.seconds == 2_592_000)
        #expect(RetainPolicy.forever.seconds == nil)

        let config = try HealthRouterConfig.parse(yaml: "journal:\n  retain: forever\n", environment: [:])
        #expect(config.journal.retain == .forever)
        let error = #expect(throws: ConfigError.self) {
            try HealthRouterConfig.parse(yaml: "journal:\n  retain: always\n", file: "r.yaml", environment: [:])
        }
        #expect(error?.path == "journal.retain")
        #expect(error?.line == 2)
    }

    @Test func paths() {
        #expect(ConfigPath.resolve("~/data", currentDirectory: "/work", homeDirectory: "/home/a") == "/home/a/data")
        #expect(ConfigPath.resolve("~", currentDirectory: "/work", homeDirectory: "/home/a") == "/home/a")
        #expect(ConfigPath.resolve("./healthrouter-data/x.sqlite", currentDirectory: "/work", homeDirectory: "/h")
            == "/work/healthrouter-data/x.sqlite")
        #expect(ConfigPath.resolve("../a/./b/", currentDirectory: "/work/dir", homeDirectory: "/h") == "/work/a/b")
        #expect(ConfigPath.resolve("/abs/path", currentDirectory: "/work", homeDirectory: "/h") == "/abs/path")
        #expect(ConfigPath.resolve("~other/x", currentDirectory: "/work", homeDirectory: "/h") == "/work/~other/x")
        #expect(ConfigPath.expandingTilde("~/x.sqlite", homeDirectory: "/home/a/") == "/home/a/x.sqlite")
        #expect(ConfigPath.expandingTilde("./x.sqlite", homeDirectory: "/home/a") == "./x.sqlite")
    }

    @Test func theHomeDirectoryIsTheEnvironmentsHomeElseThePasswordDatabases() {
        #expect(ConfigPath.homeDirectory(environment: ["HOME": "/tmp/elsewhere"]) == "/tmp/elsewhere")
        let fromPasswordDatabase = ConfigPath.homeDirectory(environment: [:])
        #expect(fromPasswordDatabase.hasPrefix("/"))
        #expect(ConfigPath.homeDirectory(environment: ["HOME": ""]) == fromPasswordDatabase)
        #expect(fromPasswordDatabase == String(cString: getpwuid(getuid())!.pointee.pw_dir))
    }
}
