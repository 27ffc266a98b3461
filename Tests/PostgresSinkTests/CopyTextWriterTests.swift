import Testing
import PostgresClient

/// COPY text as PostgreSQL reads it: tab-separated, `\N` for NULL, backslash, tab, newline and
/// carriage return escaped wherever they fall in a value.
@Suite struct CopyTextWriterTests {
    func row(_ build: (inout CopyTextWriter) -> Void) -> String {
        var writer = CopyTextWriter()
        build(&writer)
        writer.endRow()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test func escapesOnlyWhatCOPYNeeds() {
        #expect(row { $0.text("plain"); $0.text(nil); $0.text("") } == "plain\t\\N\t\n")
        #expect(row { $0.text("a\tb\nc\rd\\e") } == "a\\tb\\nc\\rd\\\\e\n")
        #expect(row { $0.text("\\start"); $0.text("end\n") } == "\\\\start\tend\\n\n")
        #expect(row { $0.text("Jürgen’s 🏃‍♀️ \u{0B}\u{0C}") } == "Jürgen’s 🏃‍♀️ \u{0B}\u{0C}\n")
        #expect(row { $0.textBytes(Array("{\"k\":\"a\\\\b\"}".utf8)) } == "{\"k\":\"a\\\\\\\\b\"}\n")
    }

    @Test func uuidsAreLowerCased() {
        #expect(row { $0.lowercasedASCII("9F1C5A52-1D2B-4A55-9E0B-2D7F6C1A0001") } == "9f1c5a52-1d2b-4a55-9e0b-2d7f6c1a0001\n")
    }

    @Test func numbers() {
        #expect(row { $0.int(Int64(-42)); $0.int(Int64?.none); $0.double(1.5); $0.double(3); $0.double(.infinity) }
                == "-42\t\\N\t1.5\t3\tInfinity\n")
    }
}
