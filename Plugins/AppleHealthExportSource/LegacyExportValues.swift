import HealthRouterCore

/// Values as exports of iOS 8 and 9 wrote them, in the spelling later exports use, so that one
/// query reads every export: those exports wrote HealthKit's raw numbers where later ones write
/// names (dates in their compact form are `HealthDateParser`'s, a record's `source` attribute is
/// its `sourceName`: `XMLName`).
///
/// - A category value written as a number: HealthKit's name of it (`HKCategoryTypeIdentifierSleepAnalysis`
///   `0` → `HKCategoryValueSleepAnalysisInBed`, `1` → `…AsleepUnspecified`), when the type's values
///   have names (`CategoryValueCodes.name(code:type:)`); otherwise as written.
/// - `Me`: a date of birth `19881029` → `1988-10-29`; biological sex, blood type and Fitzpatrick skin
///   type as their raw numbers → `HKBiologicalSexMale`, `HKBloodTypeAPositive`, `HKFitzpatrickSkinTypeI`.
///   Any other value is kept as written.
enum LegacyExportValues {
    /// The name of the category value `bytes` of `type` when `bytes` is a number (one or two ASCII
    /// digits) HealthKit names; nil otherwise (the value is then kept as written).
    static func categoryValueName(_ bytes: UnsafeBufferPointer<UInt8>, type: String) -> String? {
        guard !bytes.isEmpty, bytes.count <= 2, bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        let code = bytes.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return CategoryValueCodes.name(code: code, type: type)
    }

    /// `record`, a `Me` element, with its characteristics as later exports write them.
    static func profile(_ record: GenericRecord) -> GenericRecord {
        var modern = record
        for index in modern.attributes.indices {
            let attribute = modern.attributes[index]
            if let value = modernValue(of: attribute.name, attribute.value) { modern.attributes[index].value = value }
        }
        return modern
    }

    private static func modernValue(of characteristic: String, _ value: String) -> String? {
        guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        switch characteristic {
        case "HKCharacteristicTypeIdentifierDateOfBirth":
            guard value.utf8.count == 8 else { return nil }
            let digits = Array(value)
            let day = "\(String(digits[0..<4]))-\(String(digits[4..<6]))-\(String(digits[6..<8]))"
            return GenericRecordSample.startOfDay(day, offset: 0) != nil ? day : nil
        case "HKCharacteristicTypeIdentifierBiologicalSex":
            return Int(value).flatMap { biologicalSexes.indices.contains($0) ? "HKBiologicalSex" + biologicalSexes[$0] : nil }
        case "HKCharacteristicTypeIdentifierBloodType":
            return Int(value).flatMap { bloodTypes.indices.contains($0) ? "HKBloodType" + bloodTypes[$0] : nil }
        case "HKCharacteristicTypeIdentifierFitzpatrickSkinType":
            return Int(value).flatMap { skinTypes.indices.contains($0) ? "HKFitzpatrickSkinType" + skinTypes[$0] : nil }
        default:
            return nil
        }
    }

    /// HealthKit's cases by raw value.
    private static let biologicalSexes = ["NotSet", "Female", "Male", "Other"]
    private static let bloodTypes = ["NotSet", "APositive", "ANegative", "BPositive", "BNegative", "ABPositive",
                                     "ABNegative", "OPositive", "ONegative"]
    private static let skinTypes = ["NotSet", "I", "II", "III", "IV", "V", "VI"]
}
