/// Finds the name a person probably meant (`pth` → `path`, `batchSize` → `batch_size`).
public enum NameSuggester {
    /// The candidate closest to `name`, or nil when none is close enough to be a typo.
    /// Names equal up to case, `_` and `-` win; then a name that is the start of exactly one
    /// candidate, or one candidate the start of it (`dir` → `directory`, `state_dir` →
    /// `state_directory`; at least 3 characters); otherwise the smallest edit distance, if it is
    /// at most a third of the name's length (at least 1, at most 3).
    public static func closest(to name: String, among candidates: [String]) -> String? {
        let folded = fold(name)
        if let same = candidates.first(where: { $0 != name && fold($0) == folded }) { return same }
        if folded.count >= 3 {
            let abbreviated = candidates.filter {
                let other = fold($0)
                return $0 != name && other.count >= 3 && (other.hasPrefix(folded) || folded.hasPrefix(other))
            }
            if abbreviated.count == 1 { return abbreviated[0] }
        }
        let limit = min(3, max(1, name.count / 3))
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != name {
            let distance = editDistance(Array(name.lowercased().utf8), Array(candidate.lowercased().utf8))
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// `did you mean 'path'?`, or `expected one of: a, b, c` when nothing is close,
    /// or nil without candidates.
    public static func hint(for name: String, among candidates: [String], noun: String = "keys") -> String? {
        if let match = closest(to: name, among: candidates) { return "did you mean '\(match)'?" }
        guard !candidates.isEmpty else { return nil }
        return "known \(noun): " + candidates.joined(separator: ", ")
    }

    private static func fold(_ name: String) -> String {
        String(name.lowercased().filter { $0 != "_" && $0 != "-" })
    }

    /// Levenshtein distance over bytes (names are ASCII in practice).
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
