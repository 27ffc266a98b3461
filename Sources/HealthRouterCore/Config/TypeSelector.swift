/// One entry of a route's `types:`, compiled for matching.
///
/// - `*` selects every type, known or not.
/// - A glob (`*`, `?`) matches the type as stored, the HealthKit identifier or the short key.
/// - Any other text matches a type whose stored name, identifier, short key or group is that
///   text; a type stored under one of healthrouter's own names (`ActivitySummary`) is matched as
///   the registry type it stands for (`activitySummary`, `activity`) too. The group of unknown
///   types is `TypeRegistry.unknownGroup` (`other`), and an unknown type is still matched
///   exactly, so new HealthKit types can be routed by name.
struct TypeSelector: Sendable, Hashable {
    enum Pattern: Sendable, Hashable {
        case all
        case glob([UInt8])
        case name(String)
    }

    let text: String
    let pattern: Pattern

    init(_ text: String) {
        self.text = text
        if text == "*" {
            pattern = .all
        } else if text.utf8.contains(where: { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") }) {
            pattern = .glob(Array(text.utf8))
        } else {
            pattern = .name(text)
        }
    }

    /// True when the text can be a selector: letters, digits, `_`, `-`, `.`, `*`, `?`.
    var isWellFormed: Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || [UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "*"), UInt8(ascii: "?")].contains(byte)
        }
    }

    /// True when the selector names a known identifier, short key or group, a type name
    /// healthrouter's own sources store (`TypeRegistry.ownTypeNames`), or is a glob.
    var isKnownOrGlob: Bool {
        switch pattern {
        case .all, .glob: true
        case .name(let name):
            TypeRegistry.type(identifier: name) != nil || TypeRegistry.type(key: name) != nil
                || TypeRegistry.ownTypeNames.contains(name) || TypeRegistry.groups.contains(name)
        }
    }

    /// Every name a selector could mean, for suggestions.
    static var knownNames: [String] {
        TypeRegistry.groups + TypeRegistry.all.compactMap(\.key) + TypeRegistry.all.map(\.identifier)
            + TypeRegistry.ownTypeNames.sorted()
    }

    /// Whether the selector takes an entry stored with type `type`, which the registry knows as
    /// `known` (`TypeRegistry.selectionType(of: type)`; nil: an unknown type, in the group `other`).
    func matches(type: String, as known: HealthType?) -> Bool {
        switch pattern {
        case .all:
            return true
        case .name(let name):
            return name == type || name == known?.identifier || name == known?.key
                || name == (known?.group ?? TypeRegistry.unknownGroup)
        case .glob(let glob):
            return [type, known?.identifier, known?.key].contains { name in
                name.map { Self.glob(glob, matches: Array($0.utf8)) } == true
            }
        }
    }

    /// Matches `*` (any run) and `?` (one byte), with one backtracking point: linear in practice.
    static func glob(_ pattern: [UInt8], matches text: [UInt8]) -> Bool {
        var p = 0, t = 0
        var star: Int?, starText = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == UInt8(ascii: "*") {
                star = p; starText = t; p += 1
            } else if p < pattern.count, pattern[p] == UInt8(ascii: "?") || pattern[p] == text[t] {
                p += 1; t += 1
            } else if let s = star {
                p = s + 1; starText += 1; t = starText
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }
}
