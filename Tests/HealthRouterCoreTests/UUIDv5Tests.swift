import Testing
@testable import HealthRouterCore

@Suite struct UUIDv5Tests {
    /// RFC 4122 appendix-style vector: uuid5(NAMESPACE_DNS, "python.org") = 886313e1-3b8a-5372-9b90-0c9aee199e5d.
    @Test func knownVector() {
        let dns: [UInt8] = [0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8]
        #expect(UUIDv5.string(namespace: dns, name: "python.org") == "886313E1-3B8A-5372-9B90-0C9AEE199E5D")
    }

    @Test func exportDate() {
        let t = HealthDateParser.parse("2023-01-01 08:00:00 -0800")
        #expect(t == Timestamp(epochSeconds: 1_672_588_800, utcOffsetSeconds: -28_800))
    }
}

@Suite struct UUIDv5BufferTests {
    @Test func everyEntryPointAgrees() {
        let name = "HKQuantityTypeIdentifierHeartRate\u{1F}Apple Watch\u{1F}1\u{1F}2\u{1F}72"
        let expected = UUIDv5.string(name: name)
        let bytes = Array(name.utf8)
        #expect(bytes.withUnsafeBytes { UUIDv5.string(name: $0) } == expected)
        #expect(bytes.withUnsafeBytes { UUIDv5.format(UUIDv5.bytes(namespace: UUIDv5.sampleNamespace, name: $0)) } == expected)
        let namespaced = UUIDv5.sampleNamespace + bytes
        #expect(namespaced.withUnsafeBytes { UUIDv5.string(namespacedName: $0) } == expected)
        #expect(expected.count == 36)
        #expect(Array(expected)[14] == "5")
    }

    @Test func emptyName() {
        let dns: [UInt8] = [0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8]
        // uuid5(NAMESPACE_DNS, "") = 4ebd0208-8328-5d69-8c44-ec50939c0967.
        #expect(UUIDv5.string(namespace: dns, name: "") == "4EBD0208-8328-5D69-8C44-EC50939C0967")
    }
}
