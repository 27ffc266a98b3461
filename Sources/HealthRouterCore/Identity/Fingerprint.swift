/// The content identity of a sample (DESIGN.md §3): type, source name, start, end
/// and the value in canonical units. Samples from producers that carry no id
/// (export.xml, Health Auto Export) get the UUIDv5 of their fingerprint as id, and
/// the same reading from two producers is recognised as one sample.
public enum Fingerprint {
    /// The fingerprint text of `sample`. Fields are separated by U+001F, which no
    /// type, source name or number contains.
    public static func text(of sample: Sample) -> String {
        var text = sample.type
        text += "\u{1F}"
        text += sample.sourceName
        text += "\u{1F}"
        text += String(sample.start.epochMilliseconds)
        text += "\u{1F}"
        text += String(sample.end.epochMilliseconds)
        text += "\u{1F}"
        if let value = sample.value {
            text += String(value)
        } else if let category = sample.categoryValue {
            text += category
        }
        return text
    }

    /// The id a sample without its own gets: the UUIDv5 of its fingerprint.
    public static func id(of sample: Sample) -> String {
        UUIDv5.string(name: text(of: sample))
    }
}
