/// Resolves the locale-formatted times of day in HRV beat lists
/// (`InstantaneousBeatsPerMinute@time`: `8:05:01.23 AM`, `08:33:44,67`, U+202F before AM)
/// to instants, on the local day of a reference instant.
public enum TimeOfDayParser {
    /// The instant `text` names on the local day (in the reference's offset) of
    /// `reference`, moved a day forward when that lies more than 12 hours before
    /// `reference` (a beat list that crosses midnight). Nil when `text` is not a time of day.
    public static func resolve(_ text: String, relativeTo reference: Timestamp) -> Timestamp? {
        nil // TODO(helper A): implement
    }
}
