/// How a producer scales its values.
public enum ValueConvention: Sendable {
    /// HealthKit's own scale, as export.xml writes it: percentages as 0–1 fractions,
    /// units as the user's locale chose them (`km`, `kJ`, `degF`, …).
    case healthKit
    /// Percentages already 0–100, as Pulso (whose units are the canonical ones) and
    /// Health Auto Export write them. Other units are still converted when they are
    /// not the canonical ones (HAE writes the user's `mi`, `kJ`, `degF`).
    case canonical
}
