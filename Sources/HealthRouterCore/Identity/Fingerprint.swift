/// The content identity of a sample (DESIGN.md §3): type, source name, start, end
/// and the value in canonical units. Samples from producers that carry no id
/// (export.xml, Health Auto Export) get the UUIDv5 of their fingerprint as id, and
/// the same reading from two producers is recognised as one sample.
///
/// The fingerprint text is five fields separated by U+001F (which no type, source
/// name or number contains):
///
///     type ␟ source ␟ start ␟ end ␟ value
///
/// - `type`: the HealthKit identifier (a Pulso key or HAE name is resolved through
///   the registry; an unknown type as written);
/// - `source`: `sourceName` byte for byte;
/// - `start`, `end`: whole seconds since 1970 (floor), as every producer without ids writes
///   seconds — `1783296720`;
/// - `value`, by what the sample is:
///   - a workout (`detail` is `.workout`): Pulso's activity name, U+001F, the duration in
///     whole seconds (rounded; empty when unknown) — `running␟3612`;
///   - a number: the value in the type's canonical unit (converted when the unit differs
///     and the conversion is known), rounded to 1e-6 and written minimally (`96`,
///     `0.5`, `-1.25`), followed by a space and the unit when the unit is not the type's
///     canonical one (unknown types, unknown units) — `96`, `5 furlong`;
///   - a category value: Pulso's spelling (`asleepCore`); empty for
///     `HKCategoryValueNotApplicable`, which Pulso leaves out;
///   - a correlation: its member ids, sorted, separated by U+001F;
///   - a record kept whole (`.record`): the element name, then each attribute as
///     U+001F name `=` value, each child as U+001E child U+001D;
///   - otherwise empty.
///
/// Device, metadata, creation date and source version are not part of it: Pulso
/// sends no device, and the export restamps creation dates. The id is the upper-case
/// UUIDv5 of the text's UTF-8 bytes in `UUIDv5.sampleNamespace`.
public enum Fingerprint {
    /// The source name of a sample whose producer names none (Health Auto Export's workouts, and
    /// its points without `source`). The journal takes such a workout for the one another producer
    /// journaled at the same times.
    public static let unnamedSource = "Health Auto Export"

    /// The fingerprint text of `sample`.
    public static func text(of sample: Sample) -> String {
        withFingerprintBytes(of: sample, type: TypeRegistry.resolve(sample.type)) { bytes in
            String(decoding: UnsafeBufferPointer(rebasing: bytes[16...]), as: UTF8.self)
        }
    }

    /// The id a sample without its own gets: the UUIDv5 of its fingerprint.
    public static func id(of sample: Sample) -> String {
        id(of: sample, type: TypeRegistry.resolve(sample.type))
    }

    /// `id(of:)` with the sample's type already looked up (nil: unknown).
    static func id(of sample: borrowing Sample, type: HealthType?) -> String {
        withFingerprintBytes(of: sample, type: type) { bytes in
            UUIDv5.string(namespacedName: UnsafeRawBufferPointer(bytes))
        }
    }

    /// Calls `body` with the namespace bytes followed by the fingerprint text, built in
    /// one temporary buffer.
    private static func withFingerprintBytes<Result>(
        of sample: borrowing Sample, type: HealthType?, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        // Only what the text needs is captured below, not the whole sample.
        let identifier = type?.identifier ?? sample.type
        let sourceName = sample.sourceName
        let start = floorSeconds(sample.start.epochMilliseconds)
        let end = floorSeconds(sample.end.epochMilliseconds)
        let value = ValuePart(sample, type: type)
        let capacity = 16 + identifier.utf8.count + sourceName.utf8.count + 2 * 21 + 4 + value.capacity
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var writer = FixedByteBuffer(buffer)
            UUIDv5.sampleNamespace.withUnsafeBufferPointer { writer.append($0) }
            writer.append(identifier)
            writer.append(separator)
            writer.append(sourceName)
            writer.append(separator)
            writer.appendDecimal(start)
            writer.append(separator)
            writer.appendDecimal(end)
            writer.append(separator)
            value.write(to: &writer)
            return body(UnsafeBufferPointer(rebasing: buffer[..<writer.count]))
        }
    }

    static let separator: UInt8 = 0x1F

    private static func floorSeconds(_ milliseconds: Int64) -> Int64 {
        let seconds = milliseconds / 1000
        return milliseconds % 1000 < 0 ? seconds - 1 : seconds
    }

    /// The `value` field, decided once so that its size is known before writing.
    private enum ValuePart {
        case workout(activity: String, durationSeconds: Int64?)
        case number(Double, unit: String?)
        case text(String)
        case members([String])
        case record(GenericRecord)
        case empty

        init(_ sample: borrowing Sample, type: HealthType?) {
            switch sample.detail {
            case .workout(let workout):
                let duration = workout.durationSeconds.flatMap { seconds -> Int64? in
                    // Round to milliseconds first, so 3612.4999999999995 (a minute conversion) rounds like 3612.5.
                    let rounded = ((seconds * 1000).rounded() / 1000).rounded()
                    return rounded.isFinite && abs(rounded) < 9e18 ? Int64(rounded) : nil
                }
                self = .workout(activity: WorkoutActivityName.pulsoName(workout.activityType), durationSeconds: duration)
                return
            case .correlation(let memberIds) where sample.value == nil && sample.categoryValue == nil:
                self = .members(memberIds.sorted())
                return
            case .record(let record) where sample.value == nil && sample.categoryValue == nil:
                self = .record(record)
                return
            default:
                break
            }
            if let value = sample.value {
                guard let unit = sample.unit else {
                    self = .number(value, unit: nil)
                    return
                }
                if let type, let canonical = type.canonicalUnit {
                    if unit == canonical {
                        self = .number(value, unit: nil)
                    } else if let converted = UnitConverter.convert(value, from: unit, to: canonical) {
                        self = .number(converted, unit: nil)
                    } else {
                        self = .number(value, unit: unit)
                    }
                } else {
                    self = .number(value, unit: unit)
                }
            } else if let category = sample.categoryValue {
                self = category == "HKCategoryValueNotApplicable"
                    ? .empty : .text(CategoryValueNames.pulsoName(category, type: type?.identifier ?? sample.type))
            } else {
                self = .empty
            }
        }

        /// An upper bound of the bytes `write(to:)` writes.
        var capacity: Int {
            switch self {
            case .workout(let activity, _): activity.utf8.count + 1 + 21
            case .number(_, let unit): 48 + (unit.map { $0.utf8.count + 1 } ?? 0)
            case .text(let text): text.utf8.count
            case .members(let ids): ids.reduce(0) { $0 + $1.utf8.count + 1 }
            case .record(let record): Self.capacity(of: record)
            case .empty: 0
            }
        }

        private static func capacity(of record: GenericRecord) -> Int {
            record.element.utf8.count
                + record.attributes.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 }
                + record.children.reduce(0) { $0 + capacity(of: $1) + 2 }
        }

        func write(to writer: inout FixedByteBuffer) {
            switch self {
            case .workout(let activity, let duration):
                writer.append(activity)
                writer.append(Fingerprint.separator)
                if let duration { writer.appendDecimal(duration) }
            case .number(let value, let unit):
                writer.appendMinimal(value)
                if let unit {
                    writer.append(UInt8(ascii: " "))
                    writer.append(unit)
                }
            case .text(let text):
                writer.append(text)
            case .members(let ids):
                for (index, id) in ids.enumerated() {
                    if index > 0 { writer.append(Fingerprint.separator) }
                    writer.append(id)
                }
            case .record(let record):
                Self.write(record, to: &writer)
            case .empty:
                break
            }
        }

        private static func write(_ record: GenericRecord, to writer: inout FixedByteBuffer) {
            writer.append(record.element)
            for attribute in record.attributes {
                writer.append(Fingerprint.separator)
                writer.append(attribute.name)
                writer.append(UInt8(ascii: "="))
                writer.append(attribute.value)
            }
            for child in record.children {
                writer.append(0x1E)
                write(child, to: &writer)
                writer.append(0x1D)
            }
        }
    }
}

extension Sample {
    /// Gives a sample emitted without an id its fingerprint id (see `SourceOutput`).
    public mutating func assignFingerprintIdIfMissing() {
        if id.isEmpty { id = Fingerprint.id(of: self) }
    }
}

extension HealthItem {
    /// `Sample.assignFingerprintIdIfMissing()` for a sample; a tombstone stays as it is.
    public mutating func assignFingerprintIdIfMissing() {
        guard case .sample(var sample) = self, sample.id.isEmpty else { return }
        sample.assignFingerprintIdIfMissing()
        self = .sample(sample)
    }
}
