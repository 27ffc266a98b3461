extension Array where Element == JournalEntry {
    /// The positions of samples whose id comes again in a later sample of the array (usually
    /// none): within one write, the later version is the one that counts. A sink that sends or
    /// stages a batch as one unit leaves these out, so that a receiver or an upsert that takes
    /// an id once per unit (Pulso's server keeps the first element of a uuid in a body; an
    /// `ON CONFLICT` upsert cannot touch a row twice) gets the latest version.
    public func supersededSamplePositions() -> Set<Int> {
        var seen = Set<String>(minimumCapacity: count)
        var superseded = Set<Int>()
        for (position, entry) in enumerated().reversed() {
            guard case .sample(let sample) = entry.item else { continue }
            if !seen.insert(sample.id).inserted { superseded.insert(position) }
        }
        return superseded
    }
}
