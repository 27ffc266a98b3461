/// The table of known types (DESIGN.md §3). Unknown types are not an error: they
/// pass through untouched, in the group `other`.
///
/// Groups (what `types: [sleep]` in a route selects):
/// - `sleep` — sleep stages, sleeping wrist temperature and breathing disturbances, sleep apnea events, the sleep goal;
/// - `workouts` — workouts, their routes, workout effort scores;
/// - `activity` — steps, energy, exercise/stand/move time, stand hours, flights, every distance, strokes,
///   wheelchair pushes, cycling and other sport speeds and power, dive depth and water temperature, activity summaries;
/// - `cardio` — heart rate, resting/walking averages, HRV, VO2 max, recovery, AFib burden, heart-rate
///   notifications, heartbeat series, ECGs;
/// - `vitals` — blood oxygen, respiratory rate, blood pressure, body temperature, blood glucose, insulin,
///   blood alcohol, perfusion index, electrodermal activity, lung function, inhaler use;
/// - `body` — mass, BMI, body fat, lean mass, height, waist;
/// - `mobility` — running and walking gait, walking steadiness, six-minute walk, stair speeds, falls;
/// - `audio` — environmental and headphone exposure, sound reduction, exposure events, audiograms;
/// - `nutrition` — every dietary quantity, alcoholic beverages, food correlations;
/// - `lifestyle` — mindful sessions, state of mind, sexual activity, time in daylight, UV exposure,
///   handwashing, toothbrushing;
/// - `reproductive` — cycle tracking, pregnancy, lactation, contraception, basal body temperature;
/// - `symptoms` — every symptom category (headache, fatigue, …);
/// - `clinical` — clinical records (FHIR) and vision prescriptions;
/// - `other` — types the registry does not know.
///
/// These follow Pulso's app sections (Sleep & Circadian, Workouts, Energy & Activity, Cardio &
/// Recovery, Body, Running & Gait → `mobility`, Audio Exposure, Nutrition, Lifestyle) except where
/// a type reads better elsewhere: `appleStandHour` is `activity`; `mindfulSession`, `stateOfMind` and
/// `timeInDaylight` are `lifestyle`; `oxygenSaturation` and `respiratoryRate` are `vitals`.
public enum TypeRegistry {
    /// Every known type, grouped and ordered as `healthrouter types` prints them.
    public static let all: [HealthType] = KnownTypes.all

    private static let byIdentifier: [String: HealthType] = Dictionary(all.map { ($0.identifier, $0) }) { a, _ in a }
    private static let byKey: [String: HealthType] = Dictionary(all.compactMap { t in t.key.map { ($0, t) } }) { a, _ in a }
    private static let byHAEName: [String: HealthType] =
        Dictionary(all.flatMap { t in t.haeNames.map { ($0, t) } }) { a, _ in a }
    /// Identifiers healthrouter once gave a type, before it learnt the one HealthKit reports:
    /// samples stored under them resolve to the type (and are written under its identifier).
    static let formerIdentifiers = ["HKDataTypeIdentifierStateOfMind": "HKDataTypeStateOfMind"]
    /// Identifiers, keys and HAE names in one table, identifiers winning over keys over HAE names
    /// over former identifiers.
    private static let byAnyName: [String: HealthType] =
        Dictionary(formerIdentifiers.compactMap { former, current in byIdentifier[current].map { (former, $0) } }) { a, _ in a }
            .merging(byHAEName) { _, hae in hae }
            .merging(byKey) { _, key in key }.merging(byIdentifier) { _, identifier in identifier }

    private static let byStoredName: [String: HealthType] =
        Dictionary(all.flatMap { t in t.storedNames.map { ($0, t) } }) { a, _ in a }

    /// The group of a type the registry does not know.
    public static let unknownGroup = "other"

    /// The type the export reader stores the profile (`<Me>`) under. HealthKit has no identifier
    /// for it, so no registry type stands for it: its group is `unknownGroup`.
    public static let profileType = "Me"

    /// Every type name healthrouter's own sources store that is no identifier: each type's
    /// `storedNames`, and `profileType`. Routes and `--types` know them as they know identifiers.
    public static let ownTypeNames: Set<String> = Set(byStoredName.keys).union([profileType])

    /// The type with this HealthKit identifier.
    public static func type(identifier: String) -> HealthType? { byIdentifier[identifier] }

    /// The type with this short key (Pulso's wire key).
    public static func type(key: String) -> HealthType? { byKey[key] }

    /// The type with this Health Auto Export metric name (`heart_rate`).
    public static func type(haeName: String) -> HealthType? { byHAEName[haeName] }

    /// The type whose `storedNames` has `name` (`ActivitySummary` → the activity summary type).
    public static func type(storedName name: String) -> HealthType? { byStoredName[name] }

    /// The type a stored entry of type `name` is selected as, by routes and `--types`: `resolve`,
    /// else the type `name` is a stored name of. Never used to rewrite the stored type.
    public static func selectionType(of name: String) -> HealthType? { byAnyName[name] ?? byStoredName[name] }

    /// The type `name` names: a HealthKit identifier, a short key or a Health Auto Export
    /// metric name, tried in that order. Nil for a type the registry does not know.
    public static func resolve(_ name: String) -> HealthType? { byAnyName[name] }

    /// The HealthKit identifier of the type `name` names, or `name` itself for an unknown type.
    public static func identifier(of name: String) -> String { byAnyName[name]?.identifier ?? name }

    /// The group of the type `name` names (identifier, key or HAE name), or `unknownGroup`.
    public static func group(of name: String) -> String { byAnyName[name]?.group ?? unknownGroup }

    /// Every group name, in registry order.
    public static var groups: [String] {
        var seen = Set<String>()
        return all.map(\.group).filter { seen.insert($0).inserted } + [unknownGroup]
    }

    /// The types of `group`, in registry order (empty for `unknownGroup` and unknown groups).
    public static func types(inGroup group: String) -> [HealthType] {
        all.filter { $0.group == group }
    }
}
