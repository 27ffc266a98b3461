/// The configuration of a file source that reads a file or a folder of them for one user, with no
/// option of its own (`replay`, `health_auto_export`): keys `path` and `user_id`.
public struct FileSourceConfiguration: Decodable, Sendable {
    /// A file, or a folder of the source's files (`~` is expanded by the source).
    public var path: String
    /// The user the samples belong to (for `replay`, those of lines that name none).
    public var userId: String?

    public init(path: String, userId: String? = nil) {
        self.path = path
        self.userId = userId
    }

    enum CodingKeys: String, CodingKey {
        case path
        case userId = "user_id"
    }
}
