/// The exit codes of `healthrouter`, after BSD's sysexits so scripts can tell failures apart.
enum ExitCode: Int32 {
    case success = 0
    /// An import read its input but a sink has not caught up (it will on the next run or in the daemon).
    case incomplete = 1
    /// The command line is wrong.
    case usage = 64
    /// An input file is not usable (not a health export, truncated, malformed).
    case dataError = 65
    /// An input file does not exist or cannot be read.
    case noInput = 66
    /// A service cannot start (a listener's address is in use or not available).
    case unavailable = 69
    /// The state directory or a store cannot be written.
    case cannotCreate = 73
    /// The config file is wrong.
    case config = 78
}
