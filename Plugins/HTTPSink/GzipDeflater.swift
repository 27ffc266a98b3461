import CZlib

/// Compresses a body as gzip (zlib), in one call.
enum GzipDeflater {
    static func gzip(_ input: [UInt8], level: Int32 = 6) -> [UInt8] {
        var stream = z_stream()
        guard swz_deflateInit2(&stream, level, 15 + 16) == Z_OK else { return input }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 32)
        var source = input
        let produced = source.withUnsafeMutableBufferPointer { from in
            output.withUnsafeMutableBufferPointer { to in
                stream.next_in = from.baseAddress
                stream.avail_in = UInt32(from.count)
                stream.next_out = to.baseAddress
                stream.avail_out = UInt32(to.count)
                _ = deflate(&stream, Z_FINISH)
                return to.count - Int(stream.avail_out)
            }
        }
        output.removeSubrange(produced...)
        return output
    }
}
