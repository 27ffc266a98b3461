import Foundation
import HealthRouterCore
import AppleHealthExportSource
import HealthAutoExportFileSource
import ReplaySource

/// Checks an input (`import PATH`, `backfill --from PATH`, a file source's `path`) before
/// anything is opened or created, so that a wrong path leaves no journal or store behind.
enum InputPath {
    /// What a command-line user can give: the hint of every input error on the command line.
    static let commandLineHint = "give the path of the export.zip or export.xml (or a folder of .ndjson replay files, or of "
        + "Health Auto Export's .json files)"

    /// Where the stores are, for a SQLite database given to import: healthkit-to-sqlite takes its
    /// output file on the command line (`healthkit-to-sqlite export.zip healthkit.db`), import does not.
    static let databaseHint = "import writes the stores the config names, none given on the command line (without a config, "
        + "./healthrouter-data/health.sqlite; a sqlite sink's `path` chooses the file); a store of healthrouter's is read with "
        + "`healthrouter dump --from SINK`"

    /// How a store gets into another, for a SQLite database given to `backfill --from`, which reads
    /// a file, not a store.
    static let backfillDatabaseHint = "backfill --from reads an export or NDJSON, not a store: copy a store of healthrouter's "
        + "into the sink with `healthrouter migrate --from SINK --to SINK`, or dump it (`healthrouter dump --from SINK "
        + "--output FILE`) and give that file"

    /// Throws, with exit code 66, when `path` given to `command` (`import`, `backfill`) on the
    /// command line does not exist or cannot be read (a missing `.db`, `.sqlite` or `.sqlite3` file
    /// given to import is told where the stores are); with 65 when it is a SQLite database (told
    /// what `command` reads instead), or a folder no finite source reads (no `.ndjson` files),
    /// hinting at the export.xml or the `data/` folder of NDJSON inside it when there is one.
    static func checkCommandLine(_ path: String, command: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            if let unreachable = unreachable(path) {
                throw CommandFailure(message: "\(path) \(unreachable)", hint: "check the permissions of the folders on its path, "
                                         + "or the link", code: .noInput)
            }
            let database = command == "import" && ["db", "sqlite", "sqlite3"].contains((path as NSString).pathExtension.lowercased())
            throw CommandFailure(message: "\(path) does not exist", hint: database ? databaseHint : commandLineHint,
                                 code: .noInput)
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CommandFailure(message: "\(path) cannot be read (permission denied)",
                                 hint: "check the file's permissions", code: .noInput)
        }
        try refuseStream(path)
        if !isDirectory.boolValue {
            try refuseDatabase(path, command: command)
            return try refuseOtherJSON(path)
        }
        guard !ReplaySource.recognizes(path), !HealthAutoExportFileSource.recognizes(path) else { return }
        if let export = exportInside(path) {
            throw CommandFailure(message: "\(path) is a folder: an unpacked Apple Health export",
                                 hint: "give the export.xml inside it: \(export)", code: .dataError)
        }
        let data = (path as NSString).appendingPathComponent("data")
        if !((try? ReplaySource.files(in: data)) ?? []).isEmpty {
            throw CommandFailure(message: "\(path) is a folder without .ndjson files; its data/ folder has them",
                                 hint: "give the data folder inside it (Pulso's reference server keeps its files there): \(data)",
                                 code: .dataError)
        }
        throw CommandFailure(message: "\(path) is a folder without .ndjson files or Health Auto Export .json files",
                             hint: commandLineHint, code: .dataError)
    }

    /// Refuses a SQLite database (with 65), which the Apple Health export reader called "neither a
    /// zip file nor XML" and pointed at the Health app: the store that import writes, named as
    /// healthkit-to-sqlite's output file, or one of healthrouter's own stores; the hint is
    /// `command`'s (`import`, `backfill`).
    static func refuseDatabase(_ path: String, command: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        guard header.elementsEqual(Array("SQLite format 3\u{0}".utf8)) else { return }
        throw CommandFailure(message: "\(path) is a SQLite database, not an input \(command) reads",
                             hint: command == "import" ? databaseHint : backfillDatabaseHint, code: .dataError)
    }

    /// Refuses a `.json` file that no source reads (with 65): neither Health Auto Export's JSON nor
    /// NDJSON, it went to the Apple Health export reader, which called it "not an Apple Health export"
    /// and pointed at the Health app (`null`, `[…]`, or an empty file).
    static func refuseOtherJSON(_ path: String) throws {
        guard path.lowercased().hasSuffix(".json"), !ReplaySource.recognizes(path),
              !HealthAutoExportFileSource.recognizes(path) else { return }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        if size == 0 {
            throw CommandFailure(message: "\(path): the file is empty (0 bytes)",
                                 hint: "export it again (Health Auto Export: Export → JSON) and copy the whole file",
                                 code: .dataError)
        }
        throw CommandFailure(message: "\(path): this JSON is neither Health Auto Export's export ({\"data\": {\"metrics\": […]}}) "
                                 + "nor NDJSON of health samples (one JSON object a line)",
                             hint: commandLineHint, code: .dataError)
    }

    /// Why `path`, which `fileExists` does not find, may exist all the same: a folder on its way
    /// this user cannot search (permission denied), or a symbolic link that leads round in a loop;
    /// nil when it does not exist (or another error), which "does not exist" says.
    static func unreachable(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) != 0 else { return nil }
        switch errno {
        case EACCES: return "cannot be reached (permission denied: a folder on its path cannot be opened by this user)"
        case ELOOP: return "is a symbolic link that leads round in a loop"
        default: return nil
        }
    }

    /// Refuses a pipe, a socket or a device (`<(unzip -p export.zip …)`, `/dev/stdin` from a pipe):
    /// an import looks at a file's first bytes to tell what it is, reads it again, and resumes a cut
    /// import by offsets in it, none of which a stream allows (its first read would be lost, and it
    /// would look empty). Refused before anything is created.
    static func refuseStream(_ path: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else { return }
        let kind = status.st_mode & S_IFMT
        guard kind != S_IFREG && kind != S_IFDIR else { return }
        throw CommandFailure(message: "\(path) is a pipe or a device, not a file: an import reads its input more than once",
                             hint: "save it to a file first and import that, e.g. "
                                 + "unzip -p export.zip apple_health_export/export.xml > export.xml",
                             code: .dataError)
    }

    /// Throws, with exit code 66, when the `path` a file source's config names does not exist or
    /// cannot be read; the message names the config file, line and key, as config errors do.
    static func checkConfigured(_ plugin: PluginConfig, loaded: LoadedConfig) throws {
        guard let written = plugin.options["path"], let text = written.scalar else { return }
        let path = ConfigPath.expandingTilde(text, homeDirectory: loaded.homeDirectory)
        let keyPath = plugin.path + ".path"
        let place = { (message: String) in
            ConfigError(at: written.location, path: keyPath, message: message).description
        }
        guard FileManager.default.fileExists(atPath: path) else {
            if let unreachable = unreachable(path) {
                throw CommandFailure(message: place("\(path) \(unreachable)"),
                                     hint: "check the permissions of the folders on its path, or the link", code: .noInput)
            }
            let configFile = loaded.file.map { " in \($0)" } ?? ""
            throw CommandFailure(message: place("\(path) does not exist"),
                                 hint: "put the file there, change \(keyPath)\(configFile), or give the file to import: "
                                     + "healthrouter import PATH",
                                 code: .noInput)
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CommandFailure(message: place("\(path) cannot be read (permission denied)"),
                                 hint: "check the file's permissions", code: .noInput)
        }
        try refuseStream(path)
    }

    /// The export.xml of an unpacked export folder (in `folder` or `folder/apple_health_export`),
    /// when there is one: found by content, as in a zip (the name is localized: `exportar.xml`,
    /// `导出.xml`; `export_cda.xml` holds no HealthData).
    static func exportInside(_ folder: String) -> String? {
        for candidate in [folder, (folder as NSString).appendingPathComponent("apple_health_export")] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: candidate)) ?? []
            for name in names.sorted() where name.lowercased().hasSuffix(".xml") {
                let path = (candidate as NSString).appendingPathComponent(name)
                if AppleHealthExportSource.isHealthDataXML(path: path) { return path }
            }
        }
        return nil
    }
}
