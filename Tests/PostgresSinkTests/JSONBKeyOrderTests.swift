import Testing
import HealthRouterCore
import PostgresClient

/// `jsonb`'s key order (shorter first, then by bytes, each once), as both Postgres sinks decide
/// by it whether metadata needs its own order kept for read-back.
@Suite struct JSONBKeyOrderTests {
    func metadata(_ keys: [String]) -> [MetadataEntry] {
        keys.map { MetadataEntry($0, .bool(true)) }
    }

    @Test func shorterKeysFirstThenByBytes() {
        #expect(JSONBKeyOrder.holds(for: []))
        #expect(JSONBKeyOrder.holds(for: metadata(["only"])))
        #expect(JSONBKeyOrder.holds(for: metadata(["b", "a2", "ab", "HKA"])))
        // Upper case sorts before lower case by bytes; the longer key last whatever its letters.
        #expect(JSONBKeyOrder.holds(for: metadata(["Zz", "az", "aaa"])))
        #expect(!JSONBKeyOrder.holds(for: metadata(["ab", "b"])))
        #expect(!JSONBKeyOrder.holds(for: metadata(["az", "Zz"])))
        // jsonb keeps a repeated key once: the order of such metadata cannot come back.
        #expect(!JSONBKeyOrder.holds(for: metadata(["a", "a"])))
        // Bytes, not characters: "é" (two bytes) is longer than "z".
        #expect(JSONBKeyOrder.holds(for: metadata(["z", "é"])))
    }
}
