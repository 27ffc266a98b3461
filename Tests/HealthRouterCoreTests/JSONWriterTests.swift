import Foundation
import Testing
@testable import HealthRouterCore

@Suite struct JSONWriterTests {
    /// Writes `value` as a JSON string in an array and expects Foundation's parser to read it back.
    func expectRoundTrip(_ value: String) throws {
        var writer = JSONWriter()
        writer.beginArray()
        writer.string(value)
        writer.endArray()
        let parsed = try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String]
        #expect(parsed == [value], "\(writer.text)")
    }

    @Test func stringsRoundTripThroughAJSONParser() throws {
        let values = ["", "plain", "Jane’s Apple Watch 🏃", "quote \" and backslash \\", "line\nbreak\ttab\r",
                      "\u{0B}control\u{01}", "'; DROP TABLE samples; --", "ends with escape\""]
        for value in values { try expectRoundTrip(value) }
    }

    @Test func escapesAtEveryPositionOfEightByteWords() throws {
        // Strings are checked eight bytes at a time: put each escape at every offset of a word.
        let escapes = ["\"", "\\", "\n", "\u{01}", "\u{1F}"]
        for escape in escapes {
            for offset in 0..<20 {
                try expectRoundTrip(String(repeating: "a", count: offset) + escape + "tail ü \u{7F}"
                                        + String(repeating: "b", count: 9))
            }
        }
        // Bytes just above what needs escaping stay as they are.
        var writer = JSONWriter()
        writer.string(" !#$%&()*+,-./0123456789[]^_`{|}~")
        #expect(writer.text == "\" !#$%&()*+,-./0123456789[]^_`{|}~\"")
    }

    @Test func objectsAndNumbers() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("a", "x")
        writer.field("n", 171.0)
        writer.field("f", 0.5)
        writer.field("absent", nil as String?)
        writer.key("list"); writer.beginArray(); writer.bool(true); writer.null(); writer.int(-3); writer.endArray()
        writer.endObject()
        #expect(writer.text == #"{"a":"x","n":171,"f":0.5,"list":[true,null,-3]}"#)
    }
}
