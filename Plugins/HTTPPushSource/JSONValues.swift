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

    /// A metadata value: string, number or bool; anything else is stringified.
    static func metadataValue(_ value: Any) -> MetadataValue? {
        if let text = value as? String { return .string(text) }
        if let number = value as? NSNumber {
            return isBool(number) ? .bool(number.boolValue) : .number(number.doubleValue)
        }
        if value is NSNull { return nil }
        // An array or object (Pulso allows neither): kept as its compact JSON text, as the replay
        // source keeps it, rather than dropped.
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes]) {
            return .string(String(decoding: data, as: UTF8.self))
        }
        return .string("\(value)")
    }

    /// Parses `bytes` as JSON (fragments allowed); nil when they are not valid JSON.
    static func parse(_ bytes: [UInt8]) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }
}
