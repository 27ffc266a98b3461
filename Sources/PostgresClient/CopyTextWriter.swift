/// Builds rows in PostgreSQL's COPY text format: columns separated by tabs, rows ended by
/// newlines, `\N` for NULL, and backslash, tab, newline and carriage return escaped.
/// A NUL character is passed through, so the server refuses the row (PostgreSQL text cannot
/// hold one) and the sink reports it as rejected data.
public struct CopyTextWriter {
    public private(set) var bytes: [UInt8] = []
    public private(set) var rowCount = 0
    private var atRowStart = true

    public init(capacity: Int = 1 << 16) {
        bytes.reserveCapacity(capacity)
    }

    public var isEmpty: Bool { rowCount == 0 }

    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        rowCount = 0
        atRowStart = true
    }

    /// Appends the complete rows of `other` (at a row boundary).
    public mutating func appendRows(_ other: CopyTextWriter) {
        precondition(atRowStart && other.atRowStart, "rows are appended whole")
        bytes.append(contentsOf: other.bytes)
        rowCount += other.rowCount
    }

    private mutating func separate() {
        if !atRowStart { bytes.append(9) }
        atRowStart = false
    }

    public mutating func null() {
        separate()
        bytes.append(92); bytes.append(78)
    }

    public mutating func text(_ value: String?) {
        guard var value else { null(); return }
        separate()
        value.withUTF8 { appendEscaped($0) }
    }

    /// Text given as UTF-8 bytes (such as JSON written by `JSONWriter`), escaped for COPY.
    public mutating func textBytes(_ value: [UInt8]) {
        separate()
        value.withUnsafeBufferPointer { appendEscaped($0) }
    }

    /// `value` with ASCII `A`–`Z` lower-cased (a UUID in PostgreSQL's canonical form), escaped for COPY.
    public mutating func lowercasedASCII(_ value: String) {
        separate()
        let start = bytes.count
        var copy = value
        copy.withUTF8 { appendEscaped($0) }
        for index in start..<bytes.count where bytes[index] &- 65 < 26 { bytes[index] |= 0x20 }
    }

    public mutating func int(_ value: Int64?) {
        guard let value else { null(); return }
        separate()
        appendDecimal(value)
    }

    public mutating func int(_ value: Int32?) { int(value.map(Int64.init)) }

    /// A float8 in the shortest form that reads back exactly; infinities and NaN as PostgreSQL spells them.
    public mutating func double(_ value: Double?) {
        guard let value else { null(); return }
        separate()
        if value.isNaN { bytes.append(contentsOf: "NaN".utf8); return }
        if value.isInfinite { bytes.append(contentsOf: (value < 0 ? "-Infinity" : "Infinity").utf8); return }
        if value == value.rounded(), abs(value) < 1e15 { appendDecimal(Int64(value)); return }
        bytes.append(contentsOf: value.description.utf8)
    }

    public mutating func bool(_ value: Bool?) {
        guard let value else { null(); return }
        separate()
        bytes.append(value ? 116 : 102)
    }

    /// Appends a column whose bytes are already in COPY form.
    mutating func appendRaw(_ value: [UInt8]) {
        separate()
        bytes.append(contentsOf: value)
    }

    /// Ends the current row.
    public mutating func endRow() {
        bytes.append(10)
        rowCount += 1
        atRowStart = true
    }

    private mutating func appendDecimal(_ value: Int64) {
        if value == 0 { bytes.append(48); return }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[count] = UInt8(48 + magnitude % 10)
                magnitude /= 10
                count += 1
            }
        }
        if value < 0 { bytes.append(45) }
        withUnsafeBytes(of: &digits) { buffer in
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    /// Copies runs that need no escape in bulk: most values are one such run.
    private mutating func appendEscaped(_ value: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in 0..<value.count {
            let byte = value[index]
            // Only backslash (92), tab (9), newline (10) and carriage return (13) need escaping.
            guard byte == 92 || (byte <= 13 && (byte == 9 || byte == 10 || byte == 13)) else { continue }
            if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: value[runStart..<index])) }
            bytes.append(92)
            bytes.append(byte == 92 ? 92 : byte == 9 ? 116 : byte == 10 ? 110 : 114)
            runStart = index + 1
        }
        if runStart < value.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: value[runStart...])) }
    }
}

extension CopyTextWriter {
    /// A `bytea` value in hex form (`\x0a1b…`, its backslash escaped for COPY).
    public mutating func bytea(_ value: [UInt8]) {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var encoded: [UInt8] = [92, 92, 120]
        encoded.reserveCapacity(3 + value.count * 2)
        for byte in value {
            encoded.append(digits[Int(byte >> 4)])
            encoded.append(digits[Int(byte & 15)])
        }
        appendRaw(encoded)
    }
}
