import Foundation
import HealthRouterCore

/// The config a command runs with, and where it came from.
struct LoadedConfig {
    /// The config, its state directory resolved to an absolute path.
    var config: HealthRouterConfig
    let routes: RouteTable
    /// `--config FILE`, `./healthrouter.yaml`, or nil for the embedded default.
    var file: String?
    var logger: Logger
    /// What a leading `~` in the config's paths stands for: `HOME` of the command's environment.
    let homeDirectory: String

    var origin: String { file ?? "embedded default (no ./healthrouter.yaml)" }

    /// `--config`, else `./healthrouter.yaml` when it exists, else the embedded default. A
    /// command that starts no source (`usesSources: false`) does not need the variables only
    /// `sources` name (a daemon's push tokens); one that opens only the sinks `usesSinks` names
    /// (nil: every sink) does not need those of the others (a mirror's token); nor does a command
    /// need those of the sources whose type is in `idleSourceTypes`, which it does not start (an
    /// import, a daemon's push tokens; the daemon, a replay folder's).
    static func load(_ arguments: CommandLineArguments, environment: [String: String],
                     usesSources: Bool = true, idleSourceTypes: Set<String> = [], usesSinks: [String]? = nil) throws -> LoadedConfig {
        var unused: Set<String> = usesSources ? [] : ["sources"]
        if usesSinks != nil { unused.insert("sinks") }
        let stillUsed = Set((usesSinks ?? []).map { "sinks.\($0)" })
        let logger = try makeLogger(arguments)
        let home = ConfigPath.homeDirectory(environment: environment)
        let file: String?
        if let given = arguments.values["--config"] {
            guard FileManager.default.fileExists(atPath: given) else {
                if let unreachable = InputPath.unreachable(given) {
                    throw CommandFailure(message: "config file \(given) \(unreachable)",
                                         hint: "check the permissions of the folders on its path, or the link", code: .config)
                }
                throw CommandFailure(message: "config file \(given) does not exist",
                                     hint: "check the path, or leave --config out to use ./healthrouter.yaml or the embedded default",
                                     code: .config)
            }
            file = given
        } else {
            file = FileManager.default.fileExists(atPath: "healthrouter.yaml") ? "healthrouter.yaml" : nil
        }
        let config = try file.map { try HealthRouterConfig.load(path: $0, environment: environment, unusedSections: unused,
                                                                         stillUsed: stillUsed, idleSourceTypes: idleSourceTypes) }
            ?? HealthRouterConfig.embeddedDefault()
        return try LoadedConfig(config, file: file, logger: logger, homeDirectory: home).refusingSinksOnTheJournal()
    }

    /// Itself, unless a sink's `path` is the journal's own file (its tables would be written into
    /// the journal): both resolved as the command will open them (current directory, `~`).
    func refusingSinksOnTheJournal() throws -> LoadedConfig {
        let journal = URL(fileURLWithPath: ConfigPath.resolve(config.stateDirectory + "/journal.sqlite", homeDirectory: homeDirectory))
            .resolvingSymlinksInPath().standardizedFileURL.path
        // The store each file sink writes (an sqlite file, an ndjson folder), by resolved path.
        var stores: [String: PluginConfig] = [:]
        for sink in config.sinks {
            guard let key = PluginList.storeKey(ofSinkType: sink.type), let written = sink.options[key],
                  let path = written.scalar else { continue }
            // A NUL ("x\0y.sqlite" in double quotes) would cut the name short at it.
            if path.contains("\u{0}") {
                throw ConfigError(at: written.location, path: sink.path + "." + key, message: "the \(key) holds a NUL character",
                                  suggestion: "write the \(key) without \\0")
            }
            let resolved = URL(fileURLWithPath: ConfigPath.resolve(path, homeDirectory: homeDirectory))
                .resolvingSymlinksInPath().standardizedFileURL.path
            if resolved == journal {
                throw ConfigError(at: written.location, path: sink.path + ".path",
                                  message: "\(path) is the journal's own file (state_directory/journal.sqlite)",
                                  suggestion: "give the store a file of its own, e.g. \(config.stateDirectory)/health.sqlite")
            }
            // Two sinks on one store would each keep their cursor in it, and overwrite each other's.
            if let other = stores[resolved] {
                throw ConfigError(at: written.location, path: sink.path + "." + key,
                                  message: "\(path) is also the store of sink '\(other.name)': two sinks cannot share a "
                                    + (key == "directory" ? "folder" : "file"),
                                  suggestion: "give each sink a \(key) of its own")
            }
            stores[resolved] = sink
        }
        return self
    }

    /// Warns when the config file, which every user of this machine may read, holds secrets written
    /// in it (`LiteralSecrets`: push tokens, a sink's token or url password), naming the file, its
    /// mode and the keys, never the values (ssh refuses such a key file). One its group may read
    /// (0640) is the owner's choice; the embedded default and a pipe (`<(envsubst …)`) have no such file.
    /// `check`, and `run` at the start and on each reload, call it once.
    func warnOfSecretsEveryUserMayRead() {
        var info = stat()
        guard let file, stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & S_IROTH != 0 else { return }
        let keys = LiteralSecrets.paths(in: config)
        guard !keys.isEmpty else { return }
        logger.warning("the config file \(file) is readable by every user of this machine (mode \(String(info.st_mode & 0o777, radix: 8))) "
                           + "and holds secrets written in it: any of them could read them",
                       [("keys", keys.joined(separator: ",")),
                        ("hint", "chmod 600 \(file) (or 640 with a group the user running healthrouter is in), or write each as "
                            + "${NAME} and put the values in the environment (a systemd EnvironmentFile= of mode 600)")])
    }

    init(_ config: HealthRouterConfig, file: String?, logger: Logger, homeDirectory: String) {
        var resolved = config
        resolved.stateDirectory = ConfigPath.resolve(config.stateDirectory, homeDirectory: homeDirectory)
        self.config = resolved
        self.routes = RouteTable(config: resolved)
        self.file = file
        self.logger = logger
        self.homeDirectory = homeDirectory
    }

    static func makeLogger(_ arguments: CommandLineArguments) throws -> Logger {
        // A one-shot command prints its own summary: its log shows warnings and errors
        // unless asked for more. The daemon's log is its only output: info and up.
        var logger = Logger(minimumLevel: arguments.command == "run" ? .info : .warning)
        if let format = arguments.values["--log-format"] {
            guard let parsed = Logger.Format(rawValue: format) else {
                throw UsageError("--log-format takes text or json, not '\(format)'", command: arguments.command)
            }
            logger.format = parsed
        }
        if let level = arguments.values["--log-level"] {
            let levels: [String: Logger.Level] = ["debug": .debug, "info": .info, "warning": .warning, "error": .error]
            guard let parsed = levels[level] else {
                throw UsageError("--log-level takes debug, info, warning or error, not '\(level)'", command: arguments.command)
            }
            logger.minimumLevel = parsed
        }
        return logger
    }

    func context(for name: String) -> PluginContext {
        PluginContext(name: name, stateDirectory: config.stateDirectory, logger: logger.with("plugin", name),
                      sinkNames: config.sinks.map(\.name), routes: routes, homeDirectory: homeDirectory)
    }

    /// Every sink, decoded and routed; throws the first config error (no I/O).
    func sinkSpecs() throws -> [SinkSpec] {
        let routes = self.routes
        return try config.sinks.map { plugin in
            guard let kind = PluginList.sink(type: plugin.type) else {
                throw HealthRouterConfig.unknownType(of: plugin, known: PluginList.sinkTypes)
            }
            let make: @Sendable () throws -> any Sink
            do {
                make = try kind.prepare(plugin, context(for: plugin.name))
            } catch let error as ConfigError where plugin.options.holdsUnsetReference {
                // A sink this command does not open, whose `${NAME}` was left unset (`usesSinks`): its
                // keys are checked by the commands that open it, which refuse the variable first.
                make = { throw error }
            }
            let name = plugin.name
            return SinkSpec(name: name, type: plugin.type, makeSink: make) { type, source in
                guard let type else { return true }
                return routes.selects(sink: name, type: type, source: source)
            }
        }
    }

    /// Creates the state directory, or says why it cannot.
    /// `checkingOwnership`: false for a command that writes nothing there (`check --connect`: root
    /// checking the service's config), which leaves `checkOwnership` to the commands that write.
    func ensureStateDirectory(checkingOwnership: Bool = true) throws {
        let path = config.stateDirectory
        if let problem = StorePath.folderProblem(path, key: "state_directory") {
            throw CommandFailure(message: problem, hint: "state_directory holds the journal and the sinks' cursors: a folder "
                                     + "healthrouter can create and write", code: .cannotCreate)
        }
        // Without a config file there is no state_directory to set: say where one goes.
        let hint = file == nil
            ? "the embedded default keeps everything in ./healthrouter-data: run healthrouter from a folder you may write to, "
                + "fix this folder's permissions, or write a ./healthrouter.yaml with state_directory (and the sinks' paths) "
                + "elsewhere (start from config/healthrouter.reference.yaml)"
            : "set state_directory in \(file!) to a writable folder, or fix the folder's permissions"
        do {
            // Health data: a state directory healthrouter makes is its owner's alone (0700), whatever
            // the umask; one that exists keeps its mode (a group the owner gave access keeps it).
            try StorePath.createPrivateFolder(path)
        } catch {
            throw CommandFailure(message: "cannot create the state directory \(path): \(Self.reason(error))",
                                 hint: hint, code: .cannotCreate)
        }
        guard access(path, W_OK) == 0 else {
            // A read-only mount (a container's `:ro` volume) is not fixed by permissions.
            if errno == EROFS {
                throw CommandFailure(message: "the state directory \(path) is on a read-only file system",
                                     hint: StorePath.readOnlyMountAdvice(key: "state_directory"), code: .cannotCreate)
            }
            throw CommandFailure(message: "the state directory \(path) is not writable", hint: hint, code: .cannotCreate)
        }
        if checkingOwnership { try Self.checkOwnership(ofStateDirectory: path) }
    }

    /// Refuses a state directory another user could change: one every user may write to (a folder
    /// made in /tmp by someone else), or another user's. Its journal, stores and lock files would
    /// be theirs to read, replace, or point elsewhere by symbolic links that healthrouter then
    /// writes through with its own rights (as root, any file). A folder of this user's that its
    /// group may write is taken (the owner let that group in), and so is root's.
    static func checkOwnership(ofStateDirectory path: String) throws {
        // A symbolic link another user made: the state directory is wherever they point it.
        if let linker = StorePath.foreignLinkOwner(path) {
            throw CommandFailure(message: "the state directory \(path) is a symbolic link another user (uid \(linker)) "
                                     + "made: healthrouter would write wherever they point it",
                                 hint: "remove it, or set state_directory to a folder of your own", code: .cannotCreate)
        }
        if let mode = StorePath.modeIfEveryoneWrites(path) {
            throw CommandFailure(
                message: "the state directory \(path) may be written by every user (mode \(String(mode, radix: 8))): "
                    + "another user could replace the journal, read the health data, or make healthrouter write elsewhere",
                hint: "chmod o-w \(path) if the folder is yours (healthrouter makes its own 0700), or use a folder of your own "
                    + "(on a mount whose modes come from its options, such as vfat, CIFS or NFS: set them there, e.g. dir_mode=0770)",
                code: .cannotCreate)
        }
        // Root's is taken: root may change anything anyway (a folder an admin made for the service).
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        let me = geteuid()
        if info.st_uid != me && info.st_uid != 0 {
            let name = getpwuid(info.st_uid).flatMap { $0.pointee.pw_name.map { String(cString: $0) } }
            let owner = name ?? "uid \(info.st_uid)"
            let sudoUser = name ?? "'#\(info.st_uid)'"
            let hint = me == 0
                ? "run healthrouter as its owner (sudo -u \(sudoUser) healthrouter …; in a container whose volume is the host "
                    + "user's, docker run --user \(info.st_uid)): files root makes there would keep \(owner)'s daemon out; or, "
                    + "if the folder is not \(owner)'s to keep, chown -R root \(path)"
                : "run healthrouter as \(owner), or use a folder of your own"
            throw CommandFailure(message: "the state directory \(path) belongs to \(owner), not to the user running healthrouter: "
                                     + "\(owner) could read and change what healthrouter writes there", hint: hint, code: .cannotCreate)
        }
    }

    static func reason(_ error: any Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return ns.localizedDescription
    }
}
