import Foundation

/// Turns a path as a config writes it into an absolute path: a leading `~` or `~/` is
/// the home directory, and a relative path is resolved against the current directory
/// (not the config file's), as for paths given on the command line. `.` and `..`
/// components are folded lexically; symbolic links are not touched (no I/O).
public enum ConfigPath {
    public static func resolve(_ path: String,
                               currentDirectory: String = FileManager.default.currentDirectoryPath,
                               homeDirectory: String = NSHomeDirectory()) -> String {
        var expanded = path
        if path == "~" {
            expanded = homeDirectory
        } else if path.hasPrefix("~/") {
            expanded = homeDirectory + path.dropFirst(1)
        }
        if !expanded.hasPrefix("/") {
            expanded = currentDirectory + "/" + expanded
        }
        return normalize(expanded)
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
