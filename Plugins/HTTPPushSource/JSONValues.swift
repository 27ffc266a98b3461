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
    static func metadataValue(_ value: Any) -> MetadataValue? {
        PulsoJSONDecoder.metadataValue(jsonValue(value))
    }

    /// What `JSONSerialization` returned, as a `JSONValue` (numbers as doubles, as `JSONParser` reads them).
    static func jsonValue(_ value: Any) -> JSONValue {
        switch value {
        case let text as String: return .string(text)
        case let number as NSNumber: return isBool(number) ? .bool(number.boolValue) : .number(number.doubleValue)
        case let items as [Any]: return .array(items.map(jsonValue))
        case let object as [String: Any]: return .object(object.map { (key: $0.key, value: jsonValue($0.value)) })
        default: return .null
        }
    }

    /// Parses `bytes` as JSON (fragments allowed); nil when they are not valid JSON.
    static func parse(_ bytes: [UInt8]) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }
}
