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
}
