/// A deletion: the ids of samples removed at their origin. Carries no type and no
/// time, so every sink receives every tombstone.
public struct Tombstone: Sendable, Hashable {
    public var ids: [String]
    public var userId: String?

    public init(ids: [String], userId: String? = nil) {
        self.ids = ids
        self.userId = userId
    }
}
