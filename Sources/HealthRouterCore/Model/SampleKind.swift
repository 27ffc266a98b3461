/// What a sample is. The raw values are stored in the journal: never renumber them.
public enum SampleKind: UInt8, Sendable, Hashable, CaseIterable {
    /// A numeric reading with a unit (`HKQuantityTypeIdentifier…`).
    case quantity = 1
    /// A named state over an interval (`HKCategoryTypeIdentifier…`, sleep stages).
    case category = 2
    /// A workout, with its events, statistics, activities and routes in `detail`.
    case workout = 3
    /// A group of samples (blood pressure, food); members in `detail`.
    case correlation = 4
    /// One day's rings (`ActivitySummary`).
    case activitySummary = 5
    /// The owner's characteristics (`Me`: date of birth, sex, blood type, …).
    case profile = 6
    /// Anything else kept whole with all its attributes and children
    /// (`ClinicalRecord`, `Audiogram`, `VisionPrescription`, unknown elements).
    case other = 7

    public var name: String {
        switch self {
        case .quantity: "quantity"
        case .category: "category"
        case .workout: "workout"
        case .correlation: "correlation"
        case .activitySummary: "activity_summary"
        case .profile: "profile"
        case .other: "other"
        }
    }
}
