import Foundation
import HealthRouterCore

/// The process's limit of open files (RLIMIT_NOFILE) weighed against what a config may need.
///
/// The need is a rough upper bound, summed:
/// - 64 for the process itself: standard streams, the lock files, the journal's writer and
///   checkpointer connections (a SQLite database is three files in WAL mode), Dispatch's
///   descriptors, and what the libraries open;
/// - each sink's `SinkPlugin.openFiles`: its worker's journal connection and its store's files or
///   connections (16; an ndjson sink 16 and the 64 files it keeps open);
/// - each listener's `ServiceSource.openFilesNeeded`: an http_push source's `max_connections`
///   and 8, an admin source's 24.
///
/// `healthrouter run` raises a soft limit below the need to it (to the hard limit at most):
/// nothing in the process waits on descriptors with select(), which cannot watch one numbered
/// 1024 or more; libmicrohttpd is started with MHD_USE_POLL (`MHDServer`), libcurl and libpq
/// use poll(), Dispatch epoll. A hard limit below the need is logged with what to do.
struct OpenFileLimit: Equatable {
    var soft: UInt64
    var hard: UInt64

    /// The process's limit now, or nil when it cannot be read.
    static func current() -> OpenFileLimit? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return OpenFileLimit(soft: UInt64(limit.rlim_cur), hard: UInt64(limit.rlim_max))
    }

    /// What the process itself holds, whatever the config.
    static let processBase = 64

    /// The descriptors a daemon running `services` and `sinks` may hold at once (see the type's
    /// comment for the formula).
    static func need(services: [any ServiceSource], sinks: [SinkSpec]) -> Int {
        processBase + services.reduce(0) { $0 + $1.openFilesNeeded }
            + sinks.reduce(0) { total, sink in total + (PluginList.sinks.first { $0.type == sink.type }?.openFiles ?? 16) }
    }

    /// What to do about a hard limit below `need`.
    static func hint(need: Int) -> String {
        "raise it to \(need): LimitNOFILE=\(need) in the [Service] section of the systemd unit, or ulimit -n \(need) "
            + "in the shell that starts healthrouter; or lower max_connections"
    }

    /// Raises the soft limit to `need` when it is below (to the hard limit at most), saying so,
    /// and warns when the hard limit is below `need`: the clients beyond it would wait until a
    /// connection closes. The limit is never lowered.
    static func raise(toward need: Int, logger: Logger) {
        guard let limit = current(), limit.soft < UInt64(need) else { return }
        let target = min(limit.hard, UInt64(need))
        if target > limit.soft {
            var raised = rlimit(rlim_cur: rlim_t(target), rlim_max: rlim_t(limit.hard))
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 {
                logger.info("raised the open-file limit to what the config may need",
                            [("open_files_limit", "\(target)"), ("was", "\(limit.soft)")], numbers: [("need", LogNumber(need))])
            }
        }
        let now = current() ?? limit
        guard now.soft < UInt64(need) else { return }
        logger.warning("the open-file limit is below what the config may need: connections beyond it wait until one closes",
                       [("open_files_limit", "\(now.soft)"), ("hint", hint(need: need))], numbers: [("need", LogNumber(need))])
    }
}
