import Foundation
import Testing
@testable import HealthRouterCore

@Suite struct LoggerTests {
    @Test func textLinesFoldAnErrorOfSeveralLinesIntoOne() {
        let logger = Logger(format: .text).with("sink", "local")
        let error = "hr.yaml:4:5: sinks.local.pth: unknown key\n  hint: did you mean 'path'?"
        let line = logger.line(.error, "config not reloaded, keeping the running one", [("error", error)])
        #expect(line == "error: config not reloaded, keeping the running one sink=local "
                    + "error=hr.yaml:4:5: sinks.local.pth: unknown key; hint: did you mean 'path'?")
        #expect(logger.line(.warning, "first\r\n  second\n\n") == "warning: first; second sink=local")
        #expect(logger.line(.info, "one line", numbers: [("rows", 3)]) == "info: one line sink=local rows=3")
    }

    @Test func jsonLinesKeepTheLineBreaksEscaped() {
        let line = Logger(format: .json).line(.error, "a\n  hint: b", [("k", "v")], numbers: [("exit_code", 65)])
        #expect(!line.contains("\n"))
        #expect(line.contains(#""message":"a\n  hint: b","k":"v","exit_code":65}"#), "\(line)")
    }

    /// Counts and seconds are JSON numbers, for a shipper to sum or compare; the text log writes
    /// them as any other field.
    @Test func countsAndSecondsAreNumbersInJSON() throws {
        let numbers: [(String, LogNumber)] = [("seconds", LogNumber(91.04, places: 1)), ("failed_attempts", LogNumber(Int64(3))),
                                              ("percent", 25), ("odd", LogNumber(Double.nan, places: 1))]
        let line = Logger(format: .json).line(.info, "caught up", [("sink", "local")], numbers: numbers)
        #expect(line.hasSuffix(#""sink":"local","seconds":91.0,"failed_attempts":3,"percent":25,"odd":0}"#), "\(line)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["seconds"] as? Double == 91.0 && object["failed_attempts"] as? Int == 3)
        #expect(Logger(format: .text).line(.info, "caught up", numbers: numbers)
                    == "info: caught up seconds=91.0 failed_attempts=3 percent=25 odd=0")
    }
}
