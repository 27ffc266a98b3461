import Testing
@testable import HealthRouterCore

@Suite struct ConfigYAMLTests {
    private func parse(_ text: String, file: String? = "test.yaml") throws(ConfigError) -> ConfigNode {
        try YAMLParser.parse(Array(text.utf8), file: file)
    }

    @Test func treeKeepsOrderAndLocations() throws {
        let node = try parse("""
            b: 1
            a:
              - x
              - "y"
            c: ~
            d: 'null'
            """)
        let entries = try #require(node.entries)
        #expect(entries.map(\.key) == ["b", "a", "c", "d"])
        #expect(entries[0].keyLocation == ConfigLocation(file: "test.yaml", line: 1, column: 1))
        #expect(entries[0].value.scalar == "1")
        #expect(entries[0].value.location == ConfigLocation(file: "test.yaml", line: 1, column: 4))
        let items = try #require(node["a"]?.items)
        #expect(items.map(\.scalar) == ["x", "y"])
        #expect(items[1].location.line == 4)
        #expect(items[1].location.column == 5)
        #expect(node["c"]?.isNull == true)
        #expect(node["d"]?.scalar == "null")
    }

    @Test func emptyTextIsNull() throws {
        #expect(try parse("").isNull)
        #expect(try parse("# only a comment\n").isNull)
    }

    @Test func syntaxErrorNamesFileLineAndColumn() {
        let error = #expect(throws: ConfigError.self) {
            try parse("sinks:\n  local:\n    type: sqlite\n   path: [unclosed\n")
        }
        #expect(error?.file == "test.yaml")
        #expect(error?.line == 4)
        #expect(error?.message.hasPrefix("invalid YAML: ") == true)
        #expect(error?.description.hasPrefix("test.yaml:4:") == true)
    }

    @Test func unclosedFlowSequence() {
        let error = #expect(throws: ConfigError.self) { try parse("a: [1, 2\nb: 3\n") }
        #expect(error?.message.contains("invalid YAML") == true)
        #expect(error?.line != nil)
    }

    @Test func anUnclosedFlowMappingGetsAHint() {
        let error = #expect(throws: ConfigError.self) { try parse("sinks:\n  local: { type: sqlite, path: x\n") }
        #expect(error?.suggestion == "the { opened at line 2 has no }: close it, or quote a value that holds a comma, brace or bracket",
                "\(String(describing: error))")
    }

    @Test func tabIndentationGetsAHint() {
        let error = #expect(throws: ConfigError.self) { try parse("a:\n\tb: 1\n") }
        #expect(error?.line == 2)
        #expect(error?.suggestion?.contains("tabs") == true)
    }

    @Test func duplicateKeysAreAnError() {
        let error = #expect(throws: ConfigError.self) {
            try parse("sinks:\n  local:\n    path: a\n    path: b\n")
        }
        #expect(error?.line == 4)
        #expect(error?.column == 5)
        #expect(error?.message == "duplicate key 'path' (first written on line 3)")
        #expect(error?.path == "sinks.local.path")
    }

    @Test func aliasesAreRejected() {
        let error = #expect(throws: ConfigError.self) { try parse("a: &x 1\nb: *x\n") }
        #expect(error?.line == 2)
        #expect(error?.message.contains("aliases (*x)") == true)
        #expect(error?.path == "b")
    }

    /// A value nested 10,000 deep (a flow sequence, block mappings) is an error that names its
    /// top-level key, not a stack overflow in the passes that walk the tree (`check` crashed, and
    /// a reload with it killed the daemon).
    @Test func nestingDeeperThanAConfigEverIsRejected() {
        let flow = "sinks: {}\nextra: " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "\n"
        let error = #expect(throws: ConfigError.self) { try parse(flow) }
        #expect(error?.message == "the value is nested deeper than 64 levels")
        #expect(error?.path == "extra")
        #expect(error?.line == 2)
        let block = (0..<200).map { String(repeating: "  ", count: $0) + "k\($0):" }.joined(separator: "\n") + " 1\n"
        #expect((#expect(throws: ConfigError.self) { try parse(block) })?.path == "k0")
        // 64 levels (the file's mapping and 63 lists) are still a value.
        let deepest = String(repeating: "[", count: 63) + String(repeating: "]", count: 63)
        #expect(throws: Never.self) { try parse("a: " + deepest + "\n") }
    }

    @Test func secondDocumentIsRejected() {
        let error = #expect(throws: ConfigError.self) { try parse("a: 1\n---\nb: 2\n") }
        #expect(error?.line == 2)
    }

    @Test func nonTextKeysAreRejected() {
        let error = #expect(throws: ConfigError.self) { try parse("? [a, b]\n: 1\n") }
        #expect(error?.message.contains("key must be plain text") == true)
    }

    @Test func invalidUTF8IsAReaderError() {
        let error = #expect(throws: ConfigError.self) {
            try YAMLParser.parse([0x61, 0x3A, 0x20, 0xFF, 0xFE, 0x0A], file: "bad.yaml")
        }
        #expect(error?.suggestion == "save the file as UTF-8")
        #expect(error?.line == 1)
    }
}
