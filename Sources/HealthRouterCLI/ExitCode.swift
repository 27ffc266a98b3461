/// The exit codes of `healthrouter`, after BSD's sysexits so scripts can tell failures apart.
enum ExitCode: Int32 {
    case success = 0
    /// Not finished: a sink has not caught up (the next run or the daemon delivers the rest), a
    /// backfill or migration stopped (run again to resume), `status` found lag, dead letters or
    /// an error, or an error no other code describes.
    case incomplete = 1
    /// The command line is wrong.
    case usage = 64
    /// The data are not right: an input file is not usable (not a health export, truncated,
    /// malformed), a sink refused samples, or `migrate --verify` found the stores differ.
    case dataError = 65
    /// An input does not exist or cannot be read: a file, the journal, or the store a command reads.
    case noInput = 66
    /// A service cannot start (a listener's address is in use or not available).
    case unavailable = 69
    /// The state directory or a store cannot be written.
    case cannotCreate = 73
    /// The config file is wrong.
    case config = 78
}
