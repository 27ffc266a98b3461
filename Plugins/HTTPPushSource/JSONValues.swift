import Foundation
import HealthRouterCore

/// Reads values out of what `JSONSerialization` returns, telling booleans from numbers
/// (both arrive as `NSNumber` on Linux).
enum JSONValues {
    static func number(_ value: Any?) -> Double? {
        guard let number = value as? NSNumber, !isBool(number) else { return nil }
        return number.doubleValue
    }

    static func string(_ value: Any?) -> String? { value as? String }

    static func isBool(_ number: NSNumber) -> Bool {
        let type = String(cString: number.objCType)
        return type == "c" || type == "B"
    }

    /// A metadata value, as the replay source reads one (`PulsoJSONDecoder.metadataValue`: an
    /// array or object, which Pulso allows neither of, as its compact JSON text), so the same
    /// element pushed or replayed is the same sample; nil for a null.
    static func metadataValue(_ value: Any, nestedAsJSON: Bool = false) -> MetadataValue? {
        PulsoJSONDecoder.metadataValue(jsonValue(value), nestedAsJSON: nestedAsJSON)
    }

    /// What `JSONSerialization` returned, as a `JSONValue` (numbers as doubles, as `JSONParser` reads them).
    static func jsonValue(_ value: Any) -> JSONValue {
        // Collections first: casting one to `NSNumber` bridges it whole, level after level (a value
        // nested 120 deep took quadratic time).
        switch value {
        case let object as [String: Any]: return .object(object.map { (key: $0.key, value: jsonValue($0.value)) })
        case let items as [Any]: return .array(items.map(jsonValue))
        case let text as String: return .string(text)
        case let number as NSNumber: return isBool(number) ? .bool(number.boolValue) : .number(number.doubleValue)
        default: return .null
        }
    }

    /// Parses `bytes` as JSON (fragments allowed); nil when they are not valid JSON.
    /// `JSONSerialization` refuses valid JSON with a number out of a double's range (`1e400`):
    /// a text it refuses is read by `JSONParser` instead, the number as an infinite double, which the
    /// readers skip or keep as they do on the byte-level path, so the rest of the body is kept.
    static func parse(_ bytes: [UInt8]) -> Any? {
        if let value = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) { return value }
        // Only for that: JSONParser is laxer in what else it takes (bad UTF-8 it repairs, `01`).
        guard String(validating: bytes, as: UTF8.self) != nil, let value = try? JSONParser.parse(bytes[...]),
              hasNumberOutOfRange(value) else { return nil }
        return foundationValue(value)
    }

    /// Parses a whole body (a UTF-8 byte-order mark allowed) into a `JSONValue` tree, which
    /// takes a small part of the memory `JSONSerialization`'s objects take (about 2 KB a Health
    /// Auto Export data point on Linux: a 20 MB body took 1.2 GB); readers convert one element
    /// at a time (`foundationValue`). Nil when the bytes are not valid JSON, invalid UTF-8, a
    /// leading zero and a lone surrogate included (as `JSONSerialization` refuses them). A number
    /// out of a double's range is an infinite double, as in `parse`.
    static func tree(_ bytes: [UInt8]) -> JSONValue? {
        bytes.withUnsafeBufferPointer { buffer -> JSONValue? in
            var body = buffer[...]
            if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
            var iterator = body.makeIterator()
            var parser = Unicode.UTF8.ForwardParser()
            while true {
                switch parser.parseScalar(from: &iterator) {
                case .valid: continue
                case .emptyInput: return try? JSONParser.parse(UnsafeBufferPointer(rebasing: body), strict: true)
                case .error: return nil
                }
            }
        }
    }

    /// The entries of `value` (an array), nil for any other value.
    static func entries(_ value: JSONValue?) -> [JSONValue]? {
        if case .array(let items)? = value { items } else { nil }
    }

    /// `object`'s fields as `JSONSerialization` would give them, leaving out `skipped` (a field
    /// that may be large, read element by element instead).
    static func foundationObject(_ object: JSONValue, skipping skipped: String) -> [String: Any]? {
        guard case .object(let pairs) = object else { return nil }
        return Dictionary(pairs.filter { $0.key != skipped }.map { ($0.key, foundationValue($0.value)) },
                          uniquingKeysWith: { _, last in last })
    }

    private static func hasNumberOutOfRange(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let number): !number.isFinite
        case .array(let items): items.contains(where: hasNumberOutOfRange)
        case .object(let pairs): pairs.contains { hasNumberOutOfRange($0.value) }
        case .string, .bool, .null: false
        }
    }

    /// `value` as `JSONSerialization` would have returned it.
    static func foundationValue(_ value: JSONValue) -> Any {
        switch value {
        case .string(let text): return text
        case .number(let number): return NSNumber(value: number)
        case .bool(let flag): return NSNumber(value: flag)
        case .null: return NSNull()
        case .array(let items): return items.map(foundationValue)
        case .object(let pairs):
            // A repeated key: the last one.
            return Dictionary(pairs.map { ($0.key, foundationValue($0.value)) }, uniquingKeysWith: { _, last in last })
        }
    }
}
