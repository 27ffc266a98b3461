import HealthRouterCore

/// Reads export.xml attribute values into model values, sharing repeated strings:
/// the name table and the interners of one parse live here.
final class ExportValueReader {
    let names = XMLNameTable()
    var types = ByteStringInterner()
    var units = ByteStringInterner()
    /// Source names and versions.
    var sources = ByteStringInterner()
    var categoryValues = ByteStringInterner()
    /// Device descriptions without their per-record addresses: a handful per export.
    var devices = ByteStringInterner()
    var metadataKeys = ByteStringInterner()
    /// Metadata values repeat (`0`, `America/Los_Angeles`) but sync identifiers do not: kept small.
    var metadataValues = ByteStringInterner(maximumEntries: 16_384)

    /// The UTC offset of the last date read: export.xml writes every date with the
    /// exporting phone's offset, so this is "the export's offset".
    private(set) var lastUTCOffset: Int32?

    /// A `device` attribute, canonical (`DeviceName`) and shared.
    func device(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        DeviceName.withCanonicalBytes(bytes) { devices.string($0) }
    }

    /// A date attribute (`2023-01-01 08:00:00 -0800`, or ISO 8601 when the parser knows it).
    func date(_ bytes: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        let timestamp = HealthDateParser.parse(bytes)
        if let offset = timestamp?.utcOffsetSeconds { lastUTCOffset = offset }
        return timestamp
    }

    /// A `MetadataEntry`'s key and value; nil without a key. A value that is a plain
    /// number becomes `.number`; anything else (`"56 degF"`, `"96 %"`) stays a string.
    func metadataEntry(_ attributes: SAXAttributes) -> MetadataEntry? {
        var key: String?
        var value: MetadataValue = .string("")
        for index in 0..<attributes.count {
            switch names.name(attributes.name(index)) {
            case .key:
                key = metadataKeys.string(attributes.value(index))
            case .value:
                let bytes = attributes.value(index)
                if let number = DecimalNumber.parsePlainMetadataNumber(bytes) {
                    value = .number(number)
                } else {
                    value = .string(metadataValues.string(bytes))
                }
            default:
                break
            }
        }
        guard let key else { return nil }
        return MetadataEntry(key, value)
    }

    /// An attribute the handler has no field for, kept as a metadata entry: a plain number
    /// as a number, as a `MetadataEntry`'s value is (an export of iOS 8 or 9 wrote
    /// `HKWasUserEntered="1"` on the Record itself), anything else, or all of it `asText`, as a string.
    func extraAttribute(_ attributes: SAXAttributes, _ index: Int, asText: Bool = false) -> MetadataEntry {
        let bytes = attributes.value(index)
        if !asText, let number = DecimalNumber.parsePlainMetadataNumber(bytes) {
            return MetadataEntry(names.text(attributes.name(index)), .number(number))
        }
        return MetadataEntry(names.text(attributes.name(index)), .string(AttributeText.string(bytes)))
    }

    /// Every attribute as text, in document order (for records kept whole); a `device` without its
    /// per-record `0x…` address (`DeviceName`), as a sample's `device` is: the address differs in
    /// every export, and the element's id is the digest of its content (an audiogram exported twice
    /// was two samples).
    func genericAttributes(_ attributes: SAXAttributes) -> [GenericRecord.Attribute] {
        var result: [GenericRecord.Attribute] = []
        result.reserveCapacity(attributes.count)
        for index in 0..<attributes.count {
            let value = attributes.value(index)
            let name = attributes.name(index)
            result.append(GenericRecord.Attribute(names.text(name),
                                                  names.name(name) == .device ? device(value) : AttributeText.string(value)))
        }
        return result
    }
}
