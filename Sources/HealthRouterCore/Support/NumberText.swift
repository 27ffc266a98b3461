/// Numbers, sizes and durations written for people.
public enum NumberText {
    /// `1234567` → `1,234,567`.
    public static func grouped(_ value: Int) -> String {
        let digits = String(abs(value))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return value < 0 ? "-" + out : out
    }

    public static func grouped(_ value: Int64) -> String { grouped(Int(value)) }

    /// `1 sample`, `1,200 samples`: the count grouped, the noun in its number (`plural` when
    /// adding an s will not do).
    public static func counted(_ value: Int, _ noun: String, plural: String? = nil) -> String {
        grouped(value) + " " + (value == 1 ? noun : plural ?? noun + "s")
    }

    /// Bytes as `512 B`, `12.3 MB`, `1.40 GB`.
    public static func bytes(_ value: Int64) -> String {
        let v = Double(value)
        if v < 1_000 { return "\(value) B" }
        if v < 1_000_000 { return decimal(v / 1_000, 1) + " kB" }
        if v < 1_000_000_000 { return decimal(v / 1_000_000, 1) + " MB" }
        return decimal(v / 1_000_000_000, 2) + " GB"
    }

    /// Seconds as `0.8s`, `42s`, `3m05s`, `1h02m`.
    public static func duration(_ seconds: Double) -> String {
        if seconds < 10 { return decimal(seconds, 1) + "s" }
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m" + pad(s % 60) + "s" }
        return "\(s / 3600)h" + pad((s % 3600) / 60) + "m"
    }

    /// `value` with `places` decimals, without Foundation's formatters (`-0.5`, `12.0`); a value
    /// too large for that (past about 9e17 scaled) or not finite as Swift writes it.
    public static func decimal(_ value: Double, _ places: Int) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaledValue = (value * scale).rounded()
        guard scaledValue.isFinite, abs(scaledValue) < 9e17 else { return String(value) }
        let scaled = Int(scaledValue)
        let whole = abs(scaled) / Int(scale)
        let fraction = abs(scaled) % Int(scale)
        let sign = scaled < 0 ? "-" : ""
        guard places > 0 else { return sign + String(whole) }
        var fractionText = String(fraction)
        while fractionText.count < places { fractionText = "0" + fractionText }
        return "\(sign)\(whole).\(fractionText)"
    }

    private static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
