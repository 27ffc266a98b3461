/// What a sample carries beyond the common fields, by kind.
public enum SampleDetail: Sendable, Hashable {
    case none
    /// Boxed: a workout is large and rare, and inline it would make every sample (and every move
    /// of one) as large as a workout.
    indirect case workout(Workout)
    /// A correlation's members, by sample id (each member is also a sample of its own).
    case correlation(memberIds: [String])
    /// The beat-to-beat list of an HRV record.
    case heartbeats([Heartbeat])
    /// The whole element, for activity summaries, the profile and other records.
    case record(GenericRecord)
}
