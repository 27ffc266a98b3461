/// Converts the units export.xml writes workout totals and durations in to the
/// canonical ones of `Workout`: seconds, metres, kilocalories, count/min.
enum WorkoutUnits {
    /// Seconds in `value` `unit` (`min`, `s`, `hr`, …); nil for an unknown unit.
    static func seconds(_ value: Double, unit: String?) -> Double? {
        switch unit ?? "min" {
        case "s", "sec": value
        case "ms": value / 1000
        case "min": value * 60
        case "hr", "h": value * 3600
        case "d", "day": value * 86_400
        default: nil
        }
    }

    /// Metres in `value` `unit` (`km`, `mi`, `m`, `yd`, `ft`, …); nil for an unknown unit.
    static func meters(_ value: Double, unit: String?) -> Double? {
        switch unit ?? "m" {
        case "m": value
        case "km": value * 1000
        case "cm": value / 100
        case "mm": value / 1000
        case "mi": value * 1609.344
        case "yd": value * 0.9144
        case "ft": value * 0.3048
        case "in": value * 0.0254
        default: nil
        }
    }

    /// Kilocalories in `value` `unit` (`kcal`, `Cal`, `kJ`, …); nil for an unknown unit.
    static func kilocalories(_ value: Double, unit: String?) -> Double? {
        switch unit ?? "kcal" {
        case "kcal", "Cal": value
        case "cal": value / 1000
        case "kJ": value / 4.184
        case "J": value / 4184
        default: nil
        }
    }

    /// Beats per minute in `value` `unit` (`count/min`, `count/s`); nil for an unknown unit.
    static func beatsPerMinute(_ value: Double, unit: String?) -> Double? {
        switch unit ?? "count/min" {
        case "count/min": value
        case "count/s": value * 60
        default: nil
        }
    }
}
