import HealthRouterCore

/// Encodes journal entries as Pulso `POST /ingest` bodies: JSON arrays of sample objects
/// (`PulsoJSONEncoder`) and `{"deleted":[…]}` tombstones, split so that each body holds at
/// most `maxElements` elements and `maxBytes` uncompressed bytes (Pulso's own client sends
/// pages of 5,000 and slices of 8 MiB). A single element larger than `maxBytes` goes alone.
struct PulsoBatchEncoder {
    var maxElements = 5_000
    var maxBytes = 8 << 20
    /// Writes healthrouter's additive fields too (another healthrouter reads them back;
    /// Pulso servers ignore them).
    var extensions = true
    /// NDJSON (one element a line, no brackets) for healthrouter's native `POST /v1/samples`.
    var ndjson = false

    /// One request's body.
    struct Body {
        var bytes: [UInt8]
        /// The position in `entries` of each of its elements, in order: a receiver's reply names
        /// elements by their index in the body.
        var positions: [Int]
        /// The number of elements it holds (what the server's `"received"` must say).
        var elements: Int { positions.count }
    }

    /// The bodies. A sample whose id comes again later in `entries` is left out: a receiver keeps
    /// the first element of a uuid in a body (Pulso's server does), which would be the stale version.
    func bodies(_ entries: [JournalEntry]) -> [Body] {
        let superseded = entries.supersededSamplePositions()
        let open: [UInt8] = ndjson ? [] : [UInt8(ascii: "[")]
        let close = ndjson ? UInt8(ascii: "\n") : UInt8(ascii: "]")
        let separator = ndjson ? UInt8(ascii: "\n") : UInt8(ascii: ",")
        var bodies: [Body] = []
        var current: [UInt8] = open
        var positions: [Int] = []
        var element = JSONWriter(capacity: 1024)
        for (position, entry) in entries.enumerated() where !superseded.contains(position) {
            element.reset()
            switch entry.item {
            case .sample(let sample):
                element.beginObject()
                PulsoJSONEncoder.writeSampleFields(sample, into: &element, extensions: extensions)
                element.endObject()
            case .tombstone(let tombstone):
                element.beginObject()
                element.key("deleted")
                element.beginArray()
                for id in tombstone.ids { element.string(id) }
                element.endArray()
                // Its user, as a sample's: a receiver that keeps forwarded users' ids deletes as that user.
                if extensions { element.field("userId", tombstone.userId) }
                element.endObject()
            }
            let size = element.bytes.count + 1
            if !positions.isEmpty && (positions.count >= maxElements || current.count + size + 1 > maxBytes) {
                current.append(close)
                bodies.append(Body(bytes: current, positions: positions))
                current = open
                positions = []
            }
            if !positions.isEmpty { current.append(separator) }
            current.append(contentsOf: element.bytes)
            positions.append(position)
        }
        if !positions.isEmpty {
            current.append(close)
            bodies.append(Body(bytes: current, positions: positions))
        }
        return bodies
    }
}
