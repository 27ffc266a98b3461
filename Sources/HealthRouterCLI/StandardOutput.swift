import Foundation

/// Standard output as the commands whose result is what they print (`status`, `types`, `check`)
/// leave it, and what to do when writing there fails.
enum StandardOutput {
    /// Writes out what `print` left in standard output's buffer. Throws a `CommandFailure` (73)
    /// when that, or an earlier write of it, failed (`status > /dev/full`): the result did not reach
    /// its reader, and the command must not end as if it had.
    static func flush() throws {
        // Every stream (standard output is the only one these commands write through stdio; the C
        // global `stdout` cannot be named under strict concurrency). What a failed write left in
        // the buffer (`types`' table is larger than it) is written again, and fails again.
        guard fflush(nil) != 0 else { return }
        let code = errno
        throw CommandFailure(message: "cannot write to standard output: \(String(cString: strerror(code)))",
                             hint: hint(errno: code, elsewhere: "redirect it elsewhere"), code: .cannotCreate)
    }

    /// What to do about an output that a write of errno `code` (nil: not known) failed on;
    /// `elsewhere` is the way to send the output somewhere else (`name another file with --output`).
    static func hint(errno code: Int32?, elsewhere: String) -> String {
        switch code {
        case EBADF?:
            "it is not open for writing (opened to be read, or closed): redirect it to a file or a pipe, or \(elsewhere)"
        case EPIPE?:
            "what read it stopped reading before the end (a pipe into head): let it read everything, or \(elsewhere)"
        default:
            "free space there, or \(elsewhere)"
        }
    }
}
