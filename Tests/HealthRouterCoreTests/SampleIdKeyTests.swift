import Foundation
import Testing
@testable import HealthRouterCore

@Suite struct SampleIdKeyTests {
    func bytes(_ key: SampleIdKey.Key) -> [UInt8]? {
        guard case .uuid(let high, let low) = key else { return nil }
        return withUnsafeBytes(of: (high, low)) { Array($0) }
    }

    @Test func aCanonicalUUIDIsKeyedByItsSixteenBytesInOrder() {
        let all = (0..<16).map { UInt8($0 * 17) }
        #expect(bytes(.init(UUIDv5.format(all))) == all)
        let mixed: [UInt8] = [0xDB, 0x09, 0xD8, 0x87, 0x3A, 0xAD, 0x59, 0x61, 0xB0, 0xD1, 0xFC, 0x48, 0x43, 0xB2, 0x69, 0x3B]
        #expect(bytes(.init("DB09D887-3AAD-5961-B0D1-FC4843B2693B")) == mixed)
        #expect(bytes(.init("00000000-0000-0000-0000-000000000000")) == Array(repeating: 0, count: 16))
        #expect(bytes(.init("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")) == Array(repeating: 0xFF, count: 16))
    }

    @Test func anythingElseIsKeyedAsText() {
        let canonical = "DB09D887-3AAD-5961-B0D1-FC4843B2693B"
        var others = [
            canonical.lowercased(),                      // lower-case digits are another id's text
            canonical.replacingOccurrences(of: "-", with: ""),
            canonical + "0",
            String(canonical.dropLast()),
            "", "BULK-1", "heart-rate-2024-01-01",
        ]
        // Every position, in turn, holding a byte that does not belong there.
        for position in 0..<36 {
            for replacement in ["G", "g", "/", ":", "@", "`", "-", "\u{0}", "é"] {
                var characters = Array(canonical)
                guard characters[position] != Character(replacement) else { continue }
                characters[position] = Character(replacement)
                others.append(String(characters))
            }
        }
        for id in others {
            guard case .text(let text) = SampleIdKey.Key(id) else {
                Issue.record("\(id) was taken for a canonical UUID")
                continue
            }
            #expect(text == id)
        }
    }
}
