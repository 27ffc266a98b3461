import Testing
@testable import HealthRouterCore

@Suite struct ConfigDecoderTests {
    struct SinkOptions: Decodable, Equatable {
        var path: String
        var batchSize: Int?
        var enabled: Bool?
        var ratio: Double?
        var flush: ConfigDuration?
        var format: Format?

        enum Format: String, Decodable, CaseIterable { case pulso, native }

        enum CodingKeys: String, CodingKey {
            case path, batchSize = "batch_size", enabled, ratio, flush, format
        }
    }

    private func node(_ yaml: String) throws -> ConfigNode {
        try YAMLParser.parse(Array(yaml.utf8), file: "d.yaml")
    }

    @Test func decodesScalars() throws {
        let options = try ConfigDecoder.decode(SinkOptions.self, from: node("""
            path: /tmp/x
            batch_size: 1_000
            enabled: yes
            ratio: 0.5
            flush: 2s
            format: native
            """), path: "sinks.local")
        #expect(options == SinkOptions(path: "/tmp/x", batchSize: 1000, enabled: true, ratio: 0.5,
                                       flush: .seconds(2), format: .native))
    }

    @Test func unknownKeyNamesFullPathAndSuggests() throws {
        let error = #expect(throws: ConfigError.self) {
            try ConfigDecoder.decode(SinkOptions.self, from: node("path: /x\nbatch_sise: 3\n"), path: "sinks.local")
        }
        #expect(error?.path == "sinks.local.batch_sise")
        #expect(error?.line == 2)
        #expect(error?.column == 1)
        #expect(error?.message == "unknown key")
        #expect(error?.suggestion == "did you mean 'batch_size'?")
        #expect(error?.description == "d.yaml:2:1: sinks.local.batch_sise: unknown key\n  hint: did you mean 'batch_size'?")
    }

    @Test func misspelledRequiredKeyIsReportedAsUnknownKey() throws {
        let error = #expect(throws: ConfigError.self) {
            try ConfigDecoder.decode(SinkOptions.self, from: node("pth: /x\n"), path: "sinks.local")
        }
        #expect(error?.path == "sinks.local.pth")
        #expect(error?.suggestion == "did you mean 'path'?")
    }

    @Test func unknownKeyWithNothingCloseListsKnownKeys() throws {
        struct Options: Decodable { var path: String; var mode: String? }
        let error = #expect(throws: ConfigError.self) {
            try ConfigDecoder.decode(Options.self, from: node("path: x\ncompletely_else: 1\n"), path: "p")
        }
        #expect(error?.suggestion == "known keys: mode, path")
    }

    @Test func missingRequiredKey() throws {
        let error = #expect(throws: ConfigError.self) {
            try ConfigDecoder.decode(SinkOptions.self, from: node("batch_size: 3\n"), path: "sinks.local")
        }
        #expect(error?.path == "sinks.local.path")
        #expect(error?.message == "missing required key")
    }

    @Test func typeMismatchNamesPathAndExpectedType() throws {
        let error = #expect(throws: ConfigError.self) {
            try ConfigDecoder.decode(SinkOptions.self, from: node("path: x\nbatch_size: many\n"), path: "sinks.local")
        }
        #expect(error?.description == "d.yaml:2:13: sinks.local.batch_size: expected an integer, found \"many\""
                    + "\n  hint: write a whole number, as batch_size: 100")
        let bool = #expect(throws: ConfigError.self) {
            try ConfigDecoder.decode(SinkOptions.self, from: node("path: x\nenabled: maybe\n"), path: "s")
        }
        #expect(bool?.message == "expected true or false, found \"maybe\"")
        let mapping = #expect(throws: ConfigError.self) {
            try ConfigDecoder.decode(SinkOptions.self, from: node("path: {a: 1}\n"), path: "s")
        }
        #expect(mapping?.message == "expected a string, found a mapping")
    }

    @Test func integerOutOfRange() throws {
        struct Options: Decodable { var port: UInt16 }
        let error = #expect(throws: ConfigError.self) {
            try ConfigDecoder.decode(Options.self, from: node("port: 70000\n"), path: "")
        }
        #expect(error?.path == "port")
        #expect(error?.message == "expected an integer from 0 to 65535, found \"70000\"")
    }

    @Test func enumCasesAreListedAndSuggested() throws {
        let error = #expect(throws: ConfigError.self) {
            try ConfigDecoder.decode(SinkOptions.self, from: node("path: x\nformat: natve\n"), path: "sinks.mirror")
        }
        #expect(error?.path == "sinks.mirror.format")
        #expect(error?.message == "expected one of pulso, native, found \"natve\"")
        #expect(error?.suggestion == "did you mean 'native'?")
    }

    @Test func nestedStructsListsAndDictionaries() throws {
        struct User: Decodable { var token: String }
        struct Options: Decodable {
            var users: [String: User]
            var tags: [String]
            var nested: [[Int]]
        }
        let options = try ConfigDecoder.decode(Options.self, from: node("""
            users:
              alice: { token: a }
              bob: { token: b }
            tags: [x, y]
            nested: [[1, 2], [3]]
            """), path: "sources.phone")
        #expect(options.users["bob"]?.token == "b")
        #expect(options.tags == ["x", "y"])
        #expect(options.nested == [[1, 2], [3]])

        let error = #expect(throws: ConfigError.self) {
            try ConfigDecoder.decode(Options.self, from: node("users:\n  alice: { tokn: a }\ntags: []\nnested: []\n"), path: "sources.phone")
        }
        #expect(error?.path == "sources.phone.users.alice.tokn")
        let item = #expect(throws: ConfigError.self) {
            try ConfigDecoder.decode(Options.self, from: node("users: {}\ntags: [x, [y]]\nnested: []\n"), path: "sources.phone")
        }
        #expect(item?.path == "sources.phone.tags[1]")
        #expect(item?.message == "expected a string, found a list")
    }

    @Test func emptyValuesAreNilOrEmpty() throws {
        struct Inner: Decodable { var a: Int? }
        struct Options: Decodable { var x: String?; var inner: Inner; var list: [String] }
        let options = try ConfigDecoder.decode(Options.self, from: node("x:\ninner:\nlist:\n"), path: "")
        #expect(options.x == nil)
        #expect(options.inner.a == nil)
        #expect(options.list.isEmpty)
    }

    @Test func rawConfigNodeIsPassedThroughUnchecked() throws {
        struct Options: Decodable { var name: String; var extra: ConfigNode }
        let options = try ConfigDecoder.decode(Options.self, from: node("name: n\nextra: { anything: [1, 2] }\n"), path: "")
        #expect(options.extra["anything"]?.items?.count == 2)
        #expect(options.extra.location.line == 2)
    }

    @Test func decodingErrorsFromCustomInitArePlaced() throws {
        struct Options: Decodable {
            var url: String
            enum CodingKeys: String, CodingKey { case url }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                url = try container.decode(String.self, forKey: .url)
                guard url.hasPrefix("postgres://") else {
                    throw DecodingError.dataCorruptedError(forKey: .url, in: container,
                                                           debugDescription: "expected a postgres:// URL")
                }
            }
        }
        let error = #expect(throws: ConfigError.self) {
            try ConfigDecoder.decode(Options.self, from: node("\nurl: http://x\n"), path: "sinks.tsdb")
        }
        #expect(error?.path == "sinks.tsdb.url")
        #expect(error?.line == 2)
        #expect(error?.column == 6)
        #expect(error?.message == "expected a postgres:// URL")
    }

    @Test func substitutedValuesAreNotShownInErrors() throws {
        struct Options: Decodable { var port: Int }
        let raw = try node("port: \"${PORT}\"\n")
        let substituted = try EnvironmentSubstitution.apply(to: raw, environment: ["PORT": "secret"], path: "")
        let error = #expect(throws: ConfigError.self) { try ConfigDecoder.decode(Options.self, from: substituted, path: "") }
        #expect(error?.message == "expected an integer, found the value of \"${PORT}\"")
    }
}
