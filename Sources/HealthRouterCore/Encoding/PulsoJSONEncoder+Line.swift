extension PulsoJSONEncoder {
    /// Appends `item` as one NDJSON line (`\n`-terminated) to `out`, in the ndjson sink's
    /// line format without `receivedAt`: a sample's fields with every extension, or a
    /// tombstone `{"deleted":[…],"userId":…}`. `scratch` is reused between calls.
    public static func appendLine(_ item: HealthItem, to out: inout [UInt8], scratch: inout JSONWriter) {
        scratch.reset()
        scratch.beginObject()
        switch item {
        case .sample(let sample):
            writeSampleFields(sample, into: &scratch)
        case .tombstone(let tombstone):
            scratch.key("deleted")
            scratch.beginArray()
            for id in tombstone.ids { scratch.string(id) }
            scratch.endArray()
            scratch.field("userId", tombstone.userId)
        }
        scratch.endObject()
        out.append(contentsOf: scratch.bytes)
        out.append(0x0A)
    }
}
