import Testing
@testable import HealthRouterCore

@Suite struct DeviceNameTests {
    let watch = "<<HKDevice: 0x282a45810>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:7.2>"
    let canonicalWatch = "<<HKDevice>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:7.2>"

    @Test func stripsTheAddress() {
        #expect(DeviceName.canonical(watch) == canonicalWatch)
        #expect(DeviceName.hasAddress(watch) && !DeviceName.hasAddress(canonicalWatch))
    }

    @Test func theByteLevelFormAgreesWithTheStringForm() {
        let twice = "<<HKDevice: 0x1f>, name:A> <<HKDevice: 0x2e>, name:B>"
        for text in [watch, canonicalWatch, twice, "", "no address: 0x12 here", "<<HKDevice: 0x>>"] {
            var copy = text
            let bytes = copy.withUTF8 { utf8 in
                DeviceName.withCanonicalBytes(utf8) { String(decoding: $0, as: UTF8.self) }
            }
            #expect(bytes == DeviceName.canonical(text))
        }
    }

    @Test func recordsOfOneDeviceAgree() {
        let other = "<<HKDevice: 0x2829F7B60>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:7.2>"
        #expect(DeviceName.canonical(other) == DeviceName.canonical(watch))
    }

    @Test func keepsNewerFieldsAndUnicode() {
        let newer = "<<HKDevice: 0x600003c2d0e0>, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2, "
            + "software:17.2.1, creation date:2025-08-14 23:49:07 +0000>"
        #expect(DeviceName.canonical(newer) == "<<HKDevice>, name:iPhone, manufacturer:Apple Inc., model:iPhone, "
            + "hardware:iPhone15,2, software:17.2.1, creation date:2025-08-14 23:49:07 +0000>")
        let unicode = "<<HKDevice: 0xabc>, name:Lenilson’s Apple\u{00A0}Watch 🏃>"
        #expect(DeviceName.canonical(unicode) == "<<HKDevice>, name:Lenilson’s Apple\u{00A0}Watch 🏃>")
    }

    @Test func isIdempotentAndLeavesOtherTextAlone() {
        #expect(DeviceName.canonical(DeviceName.canonical(watch)) == DeviceName.canonical(watch))
        for text in ["", "Apple Watch", "Withings", "name: 0x12 without bracket", "a: 0x>", "a: 0xzz>", "a:0x12>",
                     "<<HKDevice: 0x>"] {
            #expect(DeviceName.canonical(text) == text, "\(text)")
        }
        #expect(DeviceName.canonical(nil as String?) == nil)
        #expect(DeviceName.canonical("two: 0x1>, and: 0xFF>") == "two>, and>")
        #expect(DeviceName.canonical(String("x<<HKDevice: 0x1>".dropFirst())) == "<<HKDevice>")
    }
}
