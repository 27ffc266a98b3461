#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Character references to characters XML 1.0 forbids (`&#11;`, `&#x1F;`, a UTF-16 surrogate such
/// as `&#55357;`): libxml2 stops the whole document at the first one, as it does at the raw byte.
/// Each is rewritten in place, at the same length, to a reference to a space (`&#11;` → `&#32;`,
/// `&#x0B;` → `&#032;`), or to four spaces for a one-digit `&#1;`, which has no room for one.
enum ForbiddenCharacterReference {
    /// The longest reference looked at (`&#x0000000B;`); longer ones are left to libxml2.
    static let longest = 12

    enum Scan: Equatable {
        /// Not a character reference, an allowed one, or one too long or malformed to touch.
        case leave
        /// A forbidden reference ending just before this index.
        case forbidden(end: Int)
        /// The buffer ends inside what may be a reference: look again with the bytes that follow.
        case incomplete
    }

    /// Rewrites every forbidden reference in `bytes[0..<count]` and returns the index of a
    /// reference the buffer cuts off (to be carried into the next buffer), or `count`. With
    /// `atEnd`, nothing follows: a cut-off reference is left as it is.
    static func rewriteAll(_ base: UnsafeMutablePointer<UInt8>, count: Int, atEnd: Bool) -> Int {
        var index = 0
        while index < count, let found = memchr(base + index, Int32(UInt8(ascii: "&")), count - index) {
            let ampersand = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            switch scan(base, count: count, at: ampersand) {
            case .forbidden(let end):
                rewrite(base + ampersand, length: end - ampersand)
                index = end
            case .incomplete:
                if !atEnd { return ampersand }
                index = ampersand + 1
            case .leave:
                index = ampersand + 1
            }
        }
        return count
    }

    /// What the bytes from `start` (an `&`) are.
    static func scan(_ base: UnsafePointer<UInt8>, count: Int, at start: Int) -> Scan {
        var position = start + 1
        func next() -> UInt8? { position < count ? base[position] : nil }
        guard let hash = next() else { return .incomplete }
        guard hash == UInt8(ascii: "#") else { return .leave }
        position += 1
        guard let first = next() else { return .incomplete }
        let hex = first == UInt8(ascii: "x")
        if hex { position += 1 }
        var value: UInt32 = 0
        var digits = 0
        while true {
            if position - start >= longest { return .leave }
            guard let byte = next() else { return .incomplete }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: digit = UInt32(byte - UInt8(ascii: "A") + 10)
            case UInt8(ascii: ";"):
                guard digits > 0 else { return .leave }
                return isAllowed(value) ? .leave : .forbidden(end: position + 1)
            default:
                return .leave
            }
            value = min(value * (hex ? 16 : 10) + digit, 0x110000)
            digits += 1
            position += 1
        }
    }

    /// Whether XML 1.0's `Char` production admits `value`.
    static func isAllowed(_ value: UInt32) -> Bool {
        switch value {
        case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    /// Overwrites the `length` bytes of a forbidden reference with a space of the same length.
    static func rewrite(_ start: UnsafeMutablePointer<UInt8>, length: Int) {
        guard length >= 5 else {
            start.update(repeating: 0x20, count: length)
            return
        }
        // `&#` + the digits of 32, zero-padded to fill the room the old digits took + `;`.
        start[0] = UInt8(ascii: "&")
        start[1] = UInt8(ascii: "#")
        for index in 2..<(length - 3) { start[index] = UInt8(ascii: "0") }
        start[length - 3] = UInt8(ascii: "3")
        start[length - 2] = UInt8(ascii: "2")
        start[length - 1] = UInt8(ascii: ";")
    }
}
