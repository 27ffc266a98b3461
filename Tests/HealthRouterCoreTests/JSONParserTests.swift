import Testing
import HealthRouterCore

@Suite struct JSONParserTests {
    @Test func readsEscapesSurrogatesNumbersAndKeepsKeyOrder() throws {
        let value = try JSONParser.parse(#" {"b":"a\"\\\/\n\u00e9\ud83c\udfc3","a":[1,-2.5,1e3,true,false,null],"c":{}} "#)
        #expect(value["b"]?.stringValue == "a\"\\/\né🏃")
        #expect(value["a"] == .array([.number(1), .number(-2.5), .number(1000), .bool(true), .bool(false), .null]))
        #expect(value.objectValue?.map(\.key) == ["b", "a", "c"])
    }

    @Test func refusesBrokenText() {
        for text in ["{", #"{"a":}"#, #"{"a":1} x"#, #""\x""#, "[1,]", "tru", "\"a\u{01}\""] {
            #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(text) }
        }
    }
}
