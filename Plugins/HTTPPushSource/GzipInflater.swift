import CZlib

/// Inflates a gzip body with a hard cap on the output: a gzip bomb is refused as soon as
/// the output passes the cap, without inflating the rest.
enum GzipInflater {
    enum Failure: Error, Equatable {
        /// Not gzip, corrupt, or truncated.
        case invalid
        /// The inflated size passed the limit.
        case tooLarge
    }

    /// The bytes of the first gzip member of `input` (trailing bytes are ignored, as Pulso's Rust server does).
    static func inflate(_ input: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        var stream = z_stream()
        // 15 + 16: gzip wrapper only.
        guard swz_inflateInit2(&stream, 15 + 16) == Z_OK else { throw .invalid }
        defer { inflateEnd(&stream) }
        var output = [UInt8]()
        output.reserveCapacity(min(limit, max(input.count * 4, 1 << 16)))
        let chunk = 1 << 18
        var buffer = [UInt8](repeating: 0, count: chunk)
        var status: Int32 = Z_OK
        try input.withUnsafeBufferPointer { (source) throws(Failure) in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = UInt32(source.count)
            repeat {
                let produced: Int = buffer.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(chunk)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return chunk - Int(stream.avail_out)
                }
                guard status == Z_OK || status == Z_STREAM_END || (status == Z_BUF_ERROR && produced > 0) else {
                    throw .invalid
                }
                if output.count + produced > limit { throw .tooLarge }
                output.append(contentsOf: buffer[0..<produced])
                if status != Z_STREAM_END && stream.avail_in == 0 && produced < chunk { throw .invalid }  // truncated
            } while status != Z_STREAM_END
        }
        return output
    }
}
