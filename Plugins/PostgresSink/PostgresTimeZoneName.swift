/// The checks of the `time_zone` option that need no server: it must look like an IANA zone name.
///
/// PostgreSQL also accepts a POSIX-style zone (`+02:00`, `UTC+2`, `CET-1`) wherever it takes a
/// zone name, and applies it with the sign POSIX gives it: hours *west* of UTC, so `+02:00` is
/// UTC−2, the opposite of what ISO 8601 and most people mean. Such a value is refused, with the
/// `Etc/GMT…` name of the offset that was probably meant. Every IANA name with a digit or `+` in
/// it is under `Etc/` (whose signs are POSIX's too, documented as such) or one of a few legacy
/// names (`GMT0`, `EST5EDT`, …), all allowed; so is anything a `posix/` or `right/` folder prefixes.
/// Whether the server knows the name is checked when connecting (`pg_timezone_names`).
enum PostgresTimeZoneName {
    /// Legacy IANA names that contain a digit or `+`, outside `Etc/`.
    private static let legacyNames: Set<String> = ["gmt0", "gmt+0", "gmt-0", "est5edt", "cst6cdt", "mst7mdt", "pst8pdt"]

    /// Why `name` cannot be used as `time_zone`, or nil when it may be a zone's name.
    static func problem(with name: String) -> String? {
        if name.isEmpty || name.contains(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || "/_+-:".contains($0))) }) {
            return "'\(name)' is not a time zone name: use an IANA name such as Europe/Lisbon"
        }
        guard name.contains(where: { $0.isNumber || $0 == "+" }) else { return nil }
        var zone = Substring(name.lowercased())
        for folder in ["posix/", "right/"] where zone.hasPrefix(folder) { zone = zone.dropFirst(folder.count) }
        if zone.hasPrefix("etc/") || legacyNames.contains(String(zone)) { return nil }
        let meant = intendedOffsetHours(name).map { hours -> String in
            let etc = "Etc/GMT" + (hours == 0 ? "" : hours > 0 ? "-\(hours)" : "+\(-hours)")
            return "\(etc) is UTC\(hours >= 0 ? "+" : "-")\(abs(hours)) all year, "
        } ?? "Etc/GMT-2 is UTC+2 all year, "
        return "'\(name)' is a POSIX-style offset, which PostgreSQL applies with the opposite sign (POSIX counts hours "
            + "west of UTC, so '+02:00' means UTC-2): use an IANA zone name instead: \(meant)"
            + "or a place's zone such as Europe/Berlin (with its daylight saving time)"
    }

    /// The whole hours east of UTC that `name` meant when read the ISO way (`+02:00`, `UTC+2`,
    ///, `+0200`: 2), or nil without a sign, with minutes other than `:00`, or beyond Etc's ±14.
    private static func intendedOffsetHours(_ name: String) -> Int? {
        guard let sign = name.firstIndex(where: { $0 == "+" || $0 == "-" }) else { return nil }
        let rest = name[name.index(after: sign)...]
        var digits = rest.prefix(while: \.isNumber)
        var after = rest.dropFirst(digits.count)
        if digits.count == 4 {  // `+0200`
            after = digits.suffix(2)
            digits = digits.prefix(2)
        }
        guard let hours = Int(digits), hours <= 14, after.isEmpty || after == ":00" || after == "00" else { return nil }
        return name[sign] == "-" ? -hours : hours
    }
}
