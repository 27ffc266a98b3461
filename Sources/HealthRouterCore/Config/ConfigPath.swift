import Foundation

/// Turns a path as a config writes it into an absolute path: a leading `~` or `~/` is
/// the home directory, and a relative path is resolved against the current directory
/// (not the config file's), as for paths given on the command line. `.` and `..`
/// components are folded lexically; symbolic links are not touched (no I/O).
public enum ConfigPath {
    public static func resolve(_ path: String,
                               currentDirectory: String = FileManager.default.currentDirectoryPath,
                               homeDirectory: String) -> String {
        var expanded = expandingTilde(path, homeDirectory: homeDirectory)
        if !expanded.hasPrefix("/") {
            expanded = currentDirectory + "/" + expanded
        }
        return normalize(expanded)
    }

    /// `path` with a leading `~` or `~/` replaced by `homeDirectory`; any other path as it is
    /// (`~other/x` is not another user's home: it stays a relative path).
    public static func expandingTilde(_ path: String, homeDirectory: String) -> String {
        if path == "~" { return homeDirectory }
        if path.hasPrefix("~/") {
            let home = homeDirectory.hasSuffix("/") ? String(homeDirectory.dropLast()) : homeDirectory
            return home + path.dropFirst(1)
        }
        return path
    }

    /// The home directory `~` stands for: `HOME` in `environment` when it is set and not empty,
    /// else the user's entry in the password database, else `/`.
    public static func homeDirectory(environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir {
            let text = String(cString: directory)
            if !text.isEmpty { return text }
        }
        return "/"
    }

    /// `/a/./b/../c/` → `/a/c`.
    static func normalize(_ absolute: String) -> String {
        var components: [Substring] = []
        for component in absolute.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": if !components.isEmpty { components.removeLast() }
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }
}
