/// A number a log line carries as a field (a count, a sequence number, seconds): a JSON log writes
/// it bare (`"seconds":12.5`), so that a shipper can sum or compare it without parsing text; the
/// text log writes it as `key=12.5`, as any other field.
public struct LogNumber: Sendable, Equatable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// Its digits: a JSON number, never grouped.
    public let description: String

    public init(_ value: some BinaryInteger) {
        description = String(value)
    }

    /// `value` with `places` decimals (`12.5`); a value that is not finite is written as 0, which
    /// JSON can hold.
    public init(_ value: Double, places: Int) {
        description = value.isFinite ? NumberText.decimal(value, places) : "0"
    }

    public init(integerLiteral value: Int) {
        self.init(value)
    }
}
