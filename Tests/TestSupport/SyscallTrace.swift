import Foundation

/// The system calls a healthrouter process made, as `strace -f -y` recorded them: for tests of what
/// reaches the disk before what (an fsync is invisible to every other test: a killed process
/// loses nothing the page cache holds, only a power cut does).
public struct SyscallTrace {
    /// One call, whether strace wrote it on one line or split it (`<unfinished ...>`, then
    /// `<... fsync resumed>` when another thread's call came between).
    public struct Call {
        public var thread: Int
        public var name: String
        /// The path of the call's first argument when it is a descriptor (`-y`: `7</a/b.ndjson>`) or a
        /// quoted path (`mkdir("/a/b", …)`); for `openat`, the path of the descriptor it returned.
        public var path: String?
        /// The call's arguments as strace printed them (strings cut at its `-s` length).
        public var arguments: String
        /// The result (`0`, `-1 ENOSPC (…)`); nil when the trace ended first.
        public var result: String?
        /// The positions, in the trace, of the call's start and of its return.
        public var started: Int
        public var returned: Int?

        public var succeeded: Bool { result.map { !$0.hasPrefix("-1") } ?? false }
    }

    public let calls: [Call]

    /// Whether strace is installed and may trace a process here (a container without `ptrace` may not).
    public static let isAvailable: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
        process.arguments = ["-f", "-qq", "-e", "trace=fsync", "-o", "/dev/null", "/bin/true"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// The start of a command line that runs what follows under strace, recording `calls` of every
    /// thread into `output` (ends in `--`). A SIGTERM to strace is passed on to what it runs (`-I2`).
    public static func tracer(_ calls: [String], into output: String) -> String {
        "/usr/bin/strace -I2 -f -y -qq -s 64 --seccomp-bpf -e trace=\(calls.joined(separator: ",")) -o '\(output)' --"
    }

    /// A `shellSetup` for `CommandRunner.run` that runs healthrouter under `tracer(calls, into: output)`.
    public static func tracing(_ calls: [String], into output: String) -> String {
        "exec \(tracer(calls, into: output)) \"$0\" \"$@\""
    }

    public init(contentsOf path: String) throws {
        var calls: [Call] = []
        var pending: [Int: Int] = [:]  // thread → its unfinished call's index
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: true)
        for (position, line) in lines.enumerated() {
            guard let space = line.firstIndex(of: " "), let thread = Int(line[..<space]) else { continue }
            let text = line[line.index(after: space)...].drop { $0 == " " }  // pids are padded to five digits
            if text.hasPrefix("<... ") {
                guard let index = pending.removeValue(forKey: thread) else { continue }
                // What a call read is printed when it returns: `<... recvfrom resumed>"POST …", …) = 745`.
                if let resumed = text.range(of: " resumed>") { calls[index].arguments += text[resumed.upperBound...] }
                calls[index].result = Self.result(of: text)
                calls[index].returned = position
                if calls[index].name == "openat", let result = calls[index].result { calls[index].path = Self.descriptorPath(result) }
                continue
            }
            guard let open = text.firstIndex(of: "(") else { continue }
            let name = String(text[..<open])
            let arguments = String(text[text.index(after: open)...])
            var call = Call(thread: thread, name: name, path: nil, arguments: arguments, result: nil, started: position, returned: nil)
            if text.hasSuffix("<unfinished ...>") {
                pending[thread] = calls.count
            } else {
                call.result = Self.result(of: text)
                call.returned = position
            }
            call.path = name == "openat" ? call.result.flatMap(Self.descriptorPath)
                : name.hasSuffix("at") ? Self.pathAt(arguments) : Self.firstPath(arguments)
            calls.append(call)
        }
        self.calls = calls
    }

    /// The calls named `name` on `path` (descriptor or quoted path) that returned.
    public func calls(_ names: Set<String>, where path: (String) -> Bool) -> [Call] {
        calls.filter { names.contains($0.name) && $0.returned != nil && $0.path.map(path) == true }
    }

    /// What follows ` = ` at the end of a line.
    private static func result(of text: Substring) -> String? {
        guard let equals = text.range(of: " = ", options: .backwards) else { return nil }
        return String(text[equals.upperBound...])
    }

    /// The path in `7</a/b>`, at the start of `text`.
    private static func descriptorPath(_ text: String) -> String? {
        guard let open = text.firstIndex(of: "<"), text[..<open].allSatisfy(\.isNumber),
              let close = text[open...].firstIndex(of: ">") else { return nil }
        return String(text[text.index(after: open)..<close])
    }

    /// The path a `…at` call names (`mkdirat(AT_FDCWD</w>, "a/b", 0755)`, as glibc's `mkdir` is on
    /// arm64, which has no `mkdir` call): its second argument, under the folder of its first when
    /// relative.
    private static func pathAt(_ arguments: String) -> String? {
        guard let open = arguments.firstIndex(of: "<"), let close = arguments[open...].firstIndex(of: ">"),
              arguments[arguments.index(after: close)...].hasPrefix(", \""),
              let path = firstPath(String(arguments[arguments.index(close, offsetBy: 3)...])) else { return firstPath(arguments) }
        return path.hasPrefix("/") ? path : String(arguments[arguments.index(after: open)..<close]) + "/" + path
    }

    /// The path of the first argument: a descriptor's (`7</a/b>`) or a quoted one (`"/a/b"`).
    private static func firstPath(_ arguments: String) -> String? {
        if arguments.hasPrefix("\"") {
            let rest = arguments.dropFirst()
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }
        return descriptorPath(arguments)
    }
}
