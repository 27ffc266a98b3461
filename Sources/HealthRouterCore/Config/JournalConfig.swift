/// The `journal:` section.
public struct JournalConfig: Sendable, Hashable, Decodable {
    /// How long entries stay, counted from when the journal took them (none goes before every
    /// routed sink has passed it). Default 30 days.
    public var retain: RetainPolicy

    public init(retain: RetainPolicy = .default) {
        self.retain = retain
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case retain
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        retain = try container.decodeIfPresent(RetainPolicy.self, forKey: .retain) ?? .default
    }
}
