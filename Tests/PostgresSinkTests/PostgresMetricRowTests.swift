import Testing
@testable import PostgresSink

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
