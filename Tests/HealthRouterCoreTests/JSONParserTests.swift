import Testing
import HealthRouterCore

@Suite struct JSONParserTests {
    @Test func readsEscapesSurrogatesNumbersAndKeepsKeyOrder() throws {
        let value = try JSONParser.parse(#" {"b":"a\"\\\/\n\u00e9\ud83c\udfc3","a":[1,-2.5,1e3,true,false,null],"c":{}} "#)
        #expect(value["b"]?.stringValue == "a\"\\/\né🏃")
        #expect(value["a"] == .array([.number(1), .number(-2.5), .number(1000), .bool(true), .bool(false), .null]))
        #expect(value.objectValue?.map(\.key) == ["b", "a", "c"])
    }

    /// Half a surrogate pair reads as U+FFFD, and the escape after it as its own character (it was
    /// taken for the other half and lost: `\ud800\u0041` was U+FFFD alone); refused when strict, or
    /// `rejectingLoneSurrogates` (which still reads `01`).
    @Test func aLoneSurrogateIsUFFFDOrRefused() throws {
        let cases = [(#""\ud800\u0041""#, "\u{FFFD}A"), (#""\ud800\ud83c\udfc3""#, "\u{FFFD}🏃"), (#""\udc00x""#, "\u{FFFD}x"),
                     (#""a\ud800""#, "a\u{FFFD}")]
        for (text, read) in cases {
            #expect(try JSONParser.parse(text).stringValue == read, "\(text)")
            #expect(throws: JSONParser.Failure.self, "\(text)") { try JSONParser.parse(Array(text.utf8)[...], strict: true) }
            #expect(throws: JSONParser.Failure.self, "\(text)") {
                try JSONParser.parse(Array(text.utf8)[...], rejectingLoneSurrogates: true)
            }
        }
        #expect(try JSONParser.parse(Array("[01]".utf8)[...], rejectingLoneSurrogates: true) == .array([.number(1)]))
        #expect(try JSONParser.parse(Array(#""\ud83c\udfc3""#.utf8)[...], rejectingLoneSurrogates: true).stringValue == "🏃")
    }

    @Test func refusesBrokenText() {
        for text in ["{", #"{"a":}"#, #"{"a":1} x"#, #""\x""#, "[1,]", "tru", "\"a\u{01}\""] {
            #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(text) }
        }
    }
}
