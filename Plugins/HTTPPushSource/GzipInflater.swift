import CZlib

/// Inflates a gzip body with a hard cap on the output: a gzip bomb is refused as soon as
/// the output passes the cap, without inflating the rest. The memory the output takes is
/// asked for before it is allocated, so that it can be counted against a budget.
enum GzipInflater {
    enum Failure: Error, Equatable {
        /// Not gzip, corrupt, or truncated.
        case invalid
        /// The inflated size passed the limit.
        case tooLarge
        /// `take` refused the memory the output needed next.
        case outOfMemoryBudget
    }

    /// The bytes of the gzip members of `input`, one after the other (a body compressed in parts,
    /// as Python's `gzip.decompress` in Pulso's server reads it); bytes after the last member that
    /// are not another member are ignored, as Pulso's Rust server does.
    ///
    /// - Parameter take: asked for each growth of the output's storage, with the bytes it adds,
    ///   before they are allocated; when it refuses the growth the output needs at least, the
    ///   inflating stops with `.outOfMemoryBudget` (that refused request was the smallest). What
    ///   it granted stays the caller's to give back, whatever the outcome.
    static func inflate(_ input: [UInt8], limit: Int, take: (_ bytes: Int) -> Bool = { _ in true }) throws(Failure) -> [UInt8] {
        var stream = z_stream()
        // 15 + 16: gzip wrapper only.
        guard swz_inflateInit2(&stream, 15 + 16) == Z_OK else { throw .invalid }
        defer { inflateEnd(&stream) }
        var output = [UInt8]()
        // A first guess of four times the input; when that does not fit, what the first chunks
        // need, grown from there as the output does (the guess is no reason to refuse).
        var granted = min(limit, max(input.count * 4, 1 << 16))
        if !take(granted) {
            granted = min(limit, 1 << 16)
            guard take(granted) else { throw .outOfMemoryBudget }
        }
        output.reserveCapacity(granted)
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
                let needed = output.count + produced
                if needed > granted {
                    // Grown by doubling, as an array grows, but asked for first; when the double
                    // does not fit, just what is needed (the budget may be nearly used up).
                    let doubled = min(limit, max(needed, granted * 2))
                    if take(doubled - granted) {
                        granted = doubled
                    } else if doubled > needed, take(needed - granted) {
                        granted = needed
                    } else {
                        throw .outOfMemoryBudget
                    }
                    output.reserveCapacity(granted)
                }
                output.append(contentsOf: buffer[0..<produced])
                if status != Z_STREAM_END && stream.avail_in == 0 && produced < chunk { throw .invalid }  // truncated
                // Another member follows (its magic bytes): read on, as one body.
                if status == Z_STREAM_END, stream.avail_in >= 2, stream.next_in[0] == 0x1f, stream.next_in[1] == 0x8b {
                    guard inflateReset(&stream) == Z_OK else { throw .invalid }
                    status = Z_OK
                }
            } while status != Z_STREAM_END
        }
        return output
    }
}
