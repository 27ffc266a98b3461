/// Category values under their two spellings: HealthKit's (`HKCategoryValueSleepAnalysisAsleepCore`,
/// as export.xml writes them) and Pulso's (`asleepCore`).
public enum CategoryValueNames {
    /// Pulso's name for a category value of `type`; unknown names are returned unchanged.
    public static func pulsoName(_ value: String, type: String) -> String {
        value // TODO(helper A): implement
    }

    /// HealthKit's name for a Pulso category value of `type`; unknown names are returned unchanged.
    public static func healthKitName(_ value: String, type: String) -> String {
        value // TODO(helper A): implement
    }
}
