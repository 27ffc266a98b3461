/// What a source emits and the journal stores: a sample or a deletion.
public enum HealthItem: Sendable, Hashable {
    case sample(Sample)
    case tombstone(Tombstone)
}
