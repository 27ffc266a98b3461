import Testing
@testable import HealthRouterCLI

/// The per-type lines of `backfill`'s summary add up to its total.
@Suite struct DirectDeliveryTextTests {
    @Test func typesBeyondTheTenthAreSummedUpInOneLine() {
        var counts: [String: Int] = [:]
        for index in 0..<12 { counts["HKQuantityTypeIdentifierType\(index)"] = 1_000 + index }
        let lines = DirectDeliveryText.samplesByType(counts)
        #expect(lines.count == 11)
        #expect(lines[0] == "HKQuantityTypeIdentifierType11: 1,011")
        #expect(lines[10] == "… and 2 more types: 2,001 samples")
    }

    @Test func tenTypesOrFewerNeedNoRemainderLine() {
        let lines = DirectDeliveryText.samplesByType(["HKQuantityTypeIdentifierHeartRate": 3, "HKQuantityTypeIdentifierStepCount": 5])
        #expect(lines == ["stepCount: 5", "heartRate: 3"])
    }
}
