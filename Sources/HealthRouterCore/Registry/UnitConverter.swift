/// Converts values from the units producers write (export.xml's and Health Auto Export's
/// HealthKit unit strings: `km`, `kJ`, `degF`, `mL/min·kg`, `mmol<180.15588>/L`, …) to
/// the registry's canonical units.
///
/// A conversion happens only between two units this converter knows that measure
/// the same thing; anything else (an unknown unit, an unknown type, a mismatch
/// such as `kg` for a distance) leaves the value unchanged. `%` is HealthKit's
/// fraction (0–1) under `ValueConvention.healthKit` and is scaled ×100 to Pulso's
/// 0–100; under `.canonical` it is left alone.
public enum UnitConverter {
    /// `value` written in `unit`, expressed in `target`; nil when either unit is
    /// unknown or they measure different things. `%` converts to `%` unchanged.
    public static func convert(_ value: Double, from unit: String, to target: String) -> Double? {
        if unit == target { return value }
        guard let source = definition(unit), let destination = definition(target),
              source.dimension == destination.dimension else { return nil }
        let base = (value + source.shift) * source.scale
        return base / destination.scale - destination.shift
    }

    /// `value`/`unit` of a sample of `type`, in the type's canonical unit: converted when
    /// the type has a canonical unit and the conversion is known, scaled ×100 for `%`
    /// under `.healthKit`, otherwise returned unchanged.
    public static func toCanonical(_ value: Double, unit: String, type: HealthType,
                                   convention: ValueConvention) -> (value: Double, unit: String) {
        guard let target = type.canonicalUnit else { return (value, unit) }
        if unit == target {
            if convention == .healthKit && target == "%" { return (value * 100, target) }
            return (value, unit)
        }
        guard let converted = convert(value, from: unit, to: target) else { return (value, unit) }
        return (converted, target)
    }

    /// `toCanonical(_:unit:type:convention:)` for a type named by identifier, short key
    /// or Health Auto Export name; unknown types are returned unchanged.
    public static func toCanonical(_ value: Double, unit: String, type: String,
                                   convention: ValueConvention) -> (value: Double, unit: String) {
        guard let known = TypeRegistry.resolve(type) else { return (value, unit) }
        return toCanonical(value, unit: unit, type: known, convention: convention)
    }

    /// Whether `unit` is one this converter knows.
    public static func knows(_ unit: String) -> Bool { definition(unit) != nil }

    /// The units a value in `target` is converted from: every other unit this converter knows
    /// that measures the same thing on another scale, smallest first, each under the first of its
    /// spellings (`hr`, not `h`; spellings of `target` itself, `bpm` for `count/min`, are left
    /// out). Empty for an unknown unit.
    public static func unitsConverted(to target: String) -> [String] {
        guard let destination = definition(target) else { return [] }
        var seen: [Definition] = [destination]
        var units: [(name: String, definition: Definition)] = []
        for (name, definition) in declared where definition.dimension == destination.dimension
            && !seen.contains(definition) {
            seen.append(definition)
            units.append((name, definition))
        }
        return units.sorted { ($0.definition.scale, $0.definition.shift) < ($1.definition.scale, $1.definition.shift) }
            .map(\.name)
    }

    // MARK: Unit table

    /// What a unit measures; only units of one dimension convert into each other.
    enum Dimension: Sendable {
        case length, mass, energy, time, temperature, volume, frequency, speed, pressure, bloodGlucose
        case oxygenUptake, metabolicRate, power, soundPressureLevel, count, percent, flowRate
        case conductance, insulin, valence, effortScore
    }

    /// base = (value + shift) × scale, in the dimension's base unit.
    struct Definition: Sendable, Equatable {
        var dimension: Dimension
        var scale: Double
        var shift: Double = 0
    }

    static func definition(_ unit: String) -> Definition? {
        if let known = table[unit] { return known }
        return molarGlucoseDefinition(unit)
    }

    /// HealthKit's molar concentration `mmol<M>/L` (M: molar mass in g/mol), as mg/dL:
    /// 1 mmol/L = M/10 mg/dL. HealthKit writes it only for blood glucose.
    private static func molarGlucoseDefinition(_ unit: String) -> Definition? {
        guard unit.hasPrefix("mmol<"), unit.hasSuffix(">/L") else { return nil }
        let mass = unit.dropFirst(5).dropLast(3)
        guard let molarMass = Double(mass), molarMass > 0, molarMass.isFinite else { return nil }
        return Definition(dimension: .bloodGlucose, scale: molarMass / 10)
    }

    /// Glucose's molar mass, for a bare `mmol/L`.
    private static let glucoseMolarMass = 180.1558800000541

    private static let table = Dictionary(declared, uniquingKeysWith: { first, _ in first })

    /// Every unit this converter knows, in the order declared: a unit's usual spelling first.
    private static let declared: [(String, Definition)] = {
        var table: [(String, Definition)] = []
        func add(_ dimension: Dimension, _ scale: Double, shift: Double = 0, _ names: String...) {
            for name in names { table.append((name, Definition(dimension: dimension, scale: scale, shift: shift))) }
        }
        // Length, in metres.
        add(.length, 1, "m")
        add(.length, 0.01, "cm")
        add(.length, 0.001, "mm")
        add(.length, 1000, "km")
        add(.length, 0.0254, "in")
        add(.length, 0.3048, "ft")
        add(.length, 0.9144, "yd")
        add(.length, 1609.344, "mi")
        // Mass, in grams.
        add(.mass, 1000, "kg")
        add(.mass, 1, "g")
        add(.mass, 0.001, "mg")
        add(.mass, 0.000_001, "mcg", "µg", "μg", "ug")
        add(.mass, 453.592_37, "lb", "lbs")
        add(.mass, 28.349_523_125, "oz")
        add(.mass, 6350.293_18, "st")
        // Energy, in joules (the food calorie `Cal` is a kilocalorie).
        add(.energy, 4184, "kcal", "Cal")
        add(.energy, 4.184, "cal")
        add(.energy, 1000, "kJ")
        add(.energy, 1, "J")
        // Time, in seconds.
        add(.time, 1, "s", "sec")
        add(.time, 0.001, "ms")
        add(.time, 60, "min")
        add(.time, 3600, "hr", "h")
        add(.time, 86_400, "d", "day")
        // Temperature, in degrees Celsius.
        add(.temperature, 1, "degC", "°C", "ºC")
        add(.temperature, 5.0 / 9.0, shift: -32, "degF", "°F", "ºF")
        add(.temperature, 1, shift: -273.15, "K")
        // Volume, in litres.
        add(.volume, 1, "L", "l")
        add(.volume, 0.001, "mL", "ml")
        add(.volume, 0.1, "dL")
        add(.volume, 0.01, "cL")
        add(.volume, 0.029_573_529_562_5, "fl_oz_us")
        add(.volume, 0.028_413_062_5, "fl_oz_imp")
        add(.volume, 0.236_588_236_5, "cup_us")
        add(.volume, 0.284_130_625, "cup_imp")
        add(.volume, 0.473_176_473, "pt_us")
        add(.volume, 0.568_261_25, "pt_imp")
        // Frequency, in events per minute.
        add(.frequency, 1, "count/min", "bpm", "beats/min", "/min", "rpm")
        add(.frequency, 60, "count/s", "/s")
        // Speed, in metres per second.
        add(.speed, 1, "m/s")
        add(.speed, 1 / 3.6, "km/hr", "km/h", "kph")
        add(.speed, 0.447_04, "mi/hr", "mi/h", "mph")
        add(.speed, 0.3048, "ft/s")
        add(.speed, 0.01, "cm/s")
        // Pressure, in millimetres of mercury.
        add(.pressure, 1, "mmHg")
        add(.pressure, 7.500_615_758_456_564, "kPa")
        add(.pressure, 0.007_500_615_758_456_564, "Pa")
        add(.pressure, 25.4, "inHg")
        add(.pressure, 0.735_559_240_2, "cmAq")
        add(.pressure, 760, "atm")
        // Blood glucose, in mg/dL.
        add(.bloodGlucose, 1, "mg/dL")
        add(.bloodGlucose, glucoseMolarMass / 10, "mmol/L")
        // Oxygen uptake (VO2 max), in mL/(kg·min).
        add(.oxygenUptake, 1, "mL/(kg·min)", "mL/min·kg", "mL/kg·min", "mL/(min·kg)", "mL/min-kg", "mL/kg-min",
            "mL/kg/min", "ml/kg/min", "ml/(kg·min)", "ml/min·kg", "mL/(kg*min)", "mL/min*kg")
        // Metabolic rate (physical effort), in kcal/(hr·kg); HealthKit's effort unit is 1 MET.
        add(.metabolicRate, 1, "kcal/hr·kg", "kcal/hr-kg", "kcal/(hr·kg)", "kcal/(kg·hr)", "kcal/kg·hr",
            "kcal/kg/hr", "kcal/hr*kg", "kcal/(kg*hr)", "MET", "METs")
        // Power, in watts.
        add(.power, 1, "W")
        add(.power, 1000, "kW")
        // Sound pressure level, in dB(A) SPL.
        add(.soundPressureLevel, 1, "dBASPL", "dB", "dBA", "dB(A)")
        // Plain counts.
        add(.count, 1, "count", "steps")
        add(.percent, 1, "%")
        // Flow rate (peak expiratory flow), in L/min.
        add(.flowRate, 1, "L/min")
        add(.flowRate, 60, "L/s")
        add(.flowRate, 0.001, "mL/min")
        // Conductance (electrodermal activity), in microsiemens.
        add(.conductance, 1, "mcS", "µS", "μS")
        add(.conductance, 1000, "mS")
        add(.conductance, 1_000_000, "S")
        add(.insulin, 1, "IU")
        add(.valence, 1, "valence")
        add(.effortScore, 1, "appleEffortScore")
        return table
    }()
}
