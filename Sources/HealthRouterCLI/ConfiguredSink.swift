import Foundation
import HealthRouterCore

/// One sink of the config, opened by name for a command that works on it alone
/// (`dump --from`, `backfill`, `migrate`).
struct ConfiguredSink {
    var name: String
    var type: String
    var spec: SinkSpec
    var sink: any Sink
    /// What `prepare()` returned: the journal cursor the sink keeps itself, if any.
    var ownCursor: Int64?

    /// The spec of the sink called `name`, without opening it; a clear error (exit 64) when the
    /// config has none, so that a command can check its sink names before it touches anything.
    static func spec(_ name: String, loaded: LoadedConfig) throws -> SinkSpec {
        let specs = try loaded.sinkSpecs()
        guard let spec = specs.first(where: { $0.name == name }) else {
            var message = "the config has no sink called '\(name)'"
            if let guess = NameSuggester.closest(to: name, among: specs.map(\.name)) { message += " (did you mean '\(guess)'?)" }
            let known = specs.map(\.name).joined(separator: ", ")
            throw CommandFailure(message: message, hint: "sinks in \(loaded.origin): \(known.isEmpty ? "none" : known)",
                                 code: .usage)
        }
        return spec
    }

    /// Builds and prepares the sink called `name`; a clear error when the config has none.
    /// With `existingStoreOnly`, a readable sink whose store (file or folder) does not exist
    /// fails with exit 66 before `prepare()` could create it empty; one behind a folder this user
    /// may not enter, which may hold it, with 73, naming that folder. A store that is down is
    /// tried five times, 0.5 s to 4 s apart, as an import tries it (exit 73 after that); a
    /// misconfigured sink fails at once (exit 78). With `readableFor` (what the command would do
    /// with its rows: "dumped"), a sink that cannot be read back fails (exit 64) before it is
    /// connected: whether its store is up does not matter. With `readOnly` as well, the store is
    /// only read (`ReadableSink.prepareForReading()`): a read-only file or database role will do.
    static func open(_ name: String, loaded: LoadedConfig, command: String, existingStoreOnly: Bool = false,
                     readableFor purpose: String? = nil, readOnly: Bool = false) throws -> ConfiguredSink {
        let spec = try spec(name, loaded: loaded)
        let retry = SinkWorker.Settings.oneShot
        func cannotOpen(_ error: any Error) -> CommandFailure {
            // Only a file or folder is held by a running healthrouter; a server is shared.
            let inUse = PluginList.storeKey(ofSinkType: spec.type) != nil ? " and not in use by a running healthrouter" : ""
            return CommandFailure(message: "cannot open the sink '\(name)' (\(spec.type)): \(error)",
                                  hint: "check that the store is reachable\(inUse)", code: .cannotCreate)
        }
        var sink: any Sink
        let own: Int64?
        do {
            sink = try spec.makeSink()
        } catch {
            throw cannotOpen(error)
        }
        if let purpose, !(sink is any ReadableSink) {
            sink.close()
            throw notReadable(name, type: spec.type, purpose: purpose)
        }
        if existingStoreOnly, let missing = (sink as? any ReadableSink)?.missingStore {
            let isDatabase = missing.contains("://")
            let absolute = isDatabase ? missing : ConfigPath.resolve(missing, homeDirectory: loaded.homeDirectory)
            // Behind a folder this user may not enter (the service's, read by a login), it may well be there.
            if !isDatabase, let closed = JournalOpenHint.closedFolder(on: (absolute as NSString).deletingLastPathComponent) {
                throw CommandFailure(message: "cannot open the sink '\(name)' (\(spec.type)): \(absolute) is in a folder this user "
                                         + "may not look into", hint: JournalOpenHint.closedFolderHint(closed), code: .cannotCreate)
            }
            let fill = "or fill the store first: healthrouter import, or healthrouter backfill \(name)"
            let hint = isDatabase ? "check sinks.\(name).url and .schema\(loaded.file.map { " in \($0)" } ?? ""), \(fill)"
                : loaded.file.map { "check sinks.\(name) in \($0) (a relative path is taken from the current directory), \(fill)" }
                ?? "the embedded default keeps its stores in ./healthrouter-data/: run where that folder is, give --config FILE, \(fill)"
            let problem = !isDatabase && FileManager.default.fileExists(atPath: absolute)
                ? "\(absolute) holds none of its tables (empty, or another program's file)" : "\(absolute) does not exist"
            throw CommandFailure(message: "the sink '\(name)' (\(spec.type)) has no store to read: \(problem)",
                                 hint: hint, code: .noInput)
        }
        var attempt = 1
        while true {
            do {
                // A failed prepare closed the sink: each try is a fresh instance (the Sink contract).
                if attempt > 1 { sink = try spec.makeSink() }
                if readOnly, purpose != nil, let readable = sink as? any ReadableSink {
                    try readable.prepareForReadingOrClose()
                    own = nil
                } else {
                    own = try sink.prepareOrClose()
                }
                break
            } catch let error as SinkError where error.isTransient && attempt < retry.maxAttempts ?? 1 {
                let reason = error.reason
                // An ndjson folder is one process's: the daemon's while it runs, however long
                // this waits.
                if spec.type == "ndjson", let daemon = DaemonLock.holder(of: loaded.config.stateDirectory) {
                    throw CommandFailure(message: "cannot open the sink '\(name)' (ndjson): \(reason)",
                                         hint: "the healthrouter run\(daemon == "?" ? "" : " (pid \(daemon))") on this state directory "
                                            + "writes that folder: stop it, run this command again, then start the daemon again "
                                            + "(its sinks resume where they stopped)",
                                         code: .cannotCreate)
                }
                let delay = retry.retryDelay(afterAttempt: attempt, error: error)
                loaded.logger.warning("cannot open the sink, retrying in \(SinkWorker.format(delay))",
                                      [("sink", name), ("error", reason)])
                Thread.sleep(forTimeInterval: delay)
                attempt += 1
            } catch SinkError.misconfigured(let reason) {
                throw CommandFailure(message: "the sink '\(name)' (\(spec.type)) is misconfigured: \(reason)",
                                     hint: "fix sinks.\(name)\(loaded.file.map { " in \($0)" } ?? "") or its store, then run again",
                                     code: .config)
            } catch {
                throw cannotOpen(error)
            }
        }
        return ConfiguredSink(name: name, type: spec.type, spec: spec, sink: sink, ownCursor: own)
    }

    /// The cursor to pass the sink's writes so that no cursor moves: its own, else the core's
    /// cursor for it in the journal (when there is a journal), else 0.
    func cursorToKeep(stateDirectory: String) throws -> Int64 {
        if let ownCursor { return ownCursor }
        let path = (stateDirectory as NSString).appendingPathComponent("journal.sqlite")
        guard FileManager.default.fileExists(atPath: path) else { return 0 }
        return try Journal(stateDirectory: stateDirectory, role: .reader).cursor(sink: name) ?? 0
    }

    /// The sink as a readable one, or an error saying that this type cannot be read back.
    func readable(for purpose: String) throws -> any ReadableSink {
        guard let readable = sink as? any ReadableSink else { throw Self.notReadable(name, type: type, purpose: purpose) }
        return readable
    }

    static func notReadable(_ name: String, type: String, purpose: String) -> CommandFailure {
        CommandFailure(message: "the sink '\(name)' (\(type)) cannot be read back, so it cannot be \(purpose)",
                       hint: "sinks that can be read back: sqlite, ndjson, postgres, timescaledb", code: .usage)
    }
}
