import Testing
@testable import HealthRouterCore

/// Numbers written for people (and, as `LogNumber`, for a JSON log).
@Suite struct NumberTextTests {
    @Test func decimalsKeepTheirSignAndDoNotOverflow() {
        #expect(NumberText.decimal(91.04, 1) == "91.0")
        #expect(NumberText.decimal(2.5, 2) == "2.50")
        #expect(NumberText.decimal(-0.5, 1) == "-0.5")
        #expect(NumberText.decimal(-12.25, 1) == "-12.3" || NumberText.decimal(-12.25, 1) == "-12.2")
        #expect(NumberText.decimal(-0.04, 1) == "0.0")
        #expect(NumberText.decimal(7, 0) == "7" && NumberText.decimal(-7, 0) == "-7")
        // Past what an Int holds once scaled: as Swift writes it, not a crash.
        #expect(NumberText.decimal(1e19, 1) == "1e+19")
        #expect(LogNumber(-0.5, places: 1).description == "-0.5")
    }
}
