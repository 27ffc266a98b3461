import Testing
@testable import PostgresSink
import HealthRouterCore

/// `source_device` is the device's name, as health4ai's app writes it.
@Suite struct PostgresMetricRowTests {
    @Test func deviceNames() {
        #expect(PostgresMetricRow.deviceName("<<HKDevice: 0x283a1c0f0>, name:Apple Watch, manufacturer:Apple Inc., model:Watch>")
                == "Apple Watch")
        #expect(PostgresMetricRow.deviceName("<<HKDevice: 0x1>, name: Oura Ring >") == "Oura Ring")
        #expect(PostgresMetricRow.deviceName("<<HKDevice: 0x1>, name:\u{00A0}Scale\u{00A0}, model:X>") == "Scale")
        #expect(PostgresMetricRow.deviceName("<<HKDevice: 0x1>, name:, model:X>") == nil)
        #expect(PostgresMetricRow.deviceName("<<HKDevice: 0x1>, model:X>") == nil)
        #expect(PostgresMetricRow.deviceName("iPhone") == "iPhone")
        #expect(PostgresMetricRow.deviceName("") == nil)
        #expect(PostgresMetricRow.deviceName(nil) == nil)
    }

    @Test func uuids() {
        #expect(PostgresUserId.isUUID("9F1C5A52-1D2B-4A55-9E0B-2D7F6C1A0001"))
        #expect(!PostgresUserId.isUUID("9F1C5A52-1D2B-4A55-9E0B-2D7F6C1A000G"))
        #expect(!PostgresUserId.isUUID("9F1C5A52x1D2B-4A55-9E0B-2D7F6C1A0001"))
        #expect(!PostgresUserId.isUUID("alice"))
        #expect(PostgresUserId.uuid("9F1C5A52-1D2B-4A55-9E0B-2D7F6C1A0001") == "9f1c5a52-1d2b-4a55-9e0b-2d7f6c1a0001")
    }
}

/// A row another program wrote (or edited) may hold any number where healthrouter keeps a UTC
/// offset: the read-back (`migrate`, `backfill --from`) leaves that offset out rather than trap.
@Suite struct PostgresReservedKeysTests {
    @Test func anOffsetNoInt32HoldsIsLeftOut() throws {
        let start = Timestamp(epochMilliseconds: 1_700_000_000_000)
        var sample = Sample(id: "S-1", type: "HKQuantityTypeIdentifierStepCount", kind: .quantity, start: start, end: start,
                            sourceName: "Phone")
        try PostgresReservedKeys.restore(["start_offset": .number(1e12), "end_offset": .number(3600)], metadata: [], into: &sample)
        #expect(sample.start.utcOffsetSeconds == nil)
        #expect(sample.end.utcOffsetSeconds == 3600)
        try PostgresReservedKeys.restore(["start_offset": .number(.nan), "end_offset": .number(1.5)], metadata: [], into: &sample)
        #expect(sample.start.utcOffsetSeconds == nil && sample.end.utcOffsetSeconds == nil)
    }
}
