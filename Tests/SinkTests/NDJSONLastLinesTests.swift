import Testing
@testable import NDJSONSink

/// `NDJSONLastLines` holds upper-case UUIDs as 16 bytes and tells ids apart exactly as strings do.
@Suite struct NDJSONLastLinesTests {
    @Test func idsAreToldApartByteForByte() {
        var last = NDJSONLastLines()
        let upper = "9F1C5A52-1D2B-4A55-9E0B-2D7F6C1A0001"
        last[upper] = .init(file: 1, line: 2)
        last[upper.lowercased()] = .init(file: 3, line: 4)
        last["SLEEP-1"] = .init(file: 5, line: 6)
        last["9F1C5A52-1D2B-4A55-9E0B-2D7F6C1A000G"] = .init(file: 7, line: 8)
        #expect(last[upper] == .init(file: 1, line: 2))
        #expect(last[upper.lowercased()] == .init(file: 3, line: 4))
        #expect(last["SLEEP-1"] == .init(file: 5, line: 6))
        #expect(last["9F1C5A52-1D2B-4A55-9E0B-2D7F6C1A000G"] == .init(file: 7, line: 8))
        #expect(last["9F1C5A52-1D2B-4A55-9E0B-2D7F6C1A0002"] == nil)
        #expect(last["9F1C5A521D2B-4A55-9E0B-2D7F6C1A0001-"] == nil)
        // A later line of an id moves its position.
        last[upper] = .init(file: 1, line: 9)
        #expect(last[upper] == .init(file: 1, line: 9))
    }
}
