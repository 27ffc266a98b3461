import Foundation

/// Runs the real `healthrouter` executable built next to the test bundle.
public struct CommandRunner {
    public struct Result {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// The built executable: next to the test bundle in `.build/<config>/`.
    public static let executable: String = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("healthrouter").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return repo.appendingPathComponent(".build/debug/healthrouter").path
    }()

    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Runs `healthrouter arguments…` in `directory` and waits for it; with `shellSetup`
    /// (`ulimit -f 1024`), bash runs those commands first and then execs it.
    public static func run(_ arguments: [String], in directory: String, environment: [String: String] = [:],
                           shellSetup: String? = nil) throws -> Result {
        let process = try start(arguments, in: directory, environment: environment, shellSetup: shellSetup)
        let out = process.standardOutput as! Pipe
        let err = process.standardError as! Pipe
        // Read before waiting so a full pipe cannot block the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs `healthrouter arguments…` as `run` does, but as a user whom file modes hold to them:
    /// this one when the tests do not run as root, else nobody (uid 65534, through util-linux's
    /// setpriv), from a copy of the executable in the temporary folder (the checkout may be closed
    /// to other users). What it reads must be readable by others.
    /// `timeoutSeconds`: a command still running then (a daemon that should have refused to
    /// start) gets SIGTERM, and the result is whatever it exits with then.
    public static func runUnprivileged(_ arguments: [String], in directory: String,
                                       environment: [String: String] = [:], timeoutSeconds: Int? = nil) throws -> Result {
        let timeout = timeoutSeconds.map { "/usr/bin/timeout \($0) " } ?? ""
        guard getuid() == 0 else {
            return try run(arguments, in: directory, environment: environment,
                           shellSetup: timeoutSeconds.map { _ in "exec \(timeout)\(executable) \"$@\"" })
        }
        return try run(arguments, in: directory, environment: environment,
                       shellSetup: "exec \(timeout)/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups \(try unprivilegedCopy()) \"$@\"")
    }

    /// Makes `path` the property of the user `runUnprivileged` runs as (nobody, when the tests run
    /// as root; else it is this user's already): a state directory healthrouter accepts as its own.
    public static func giveToUnprivilegedUser(_ path: String) {
        if getuid() == 0 { chown(path, 65534, 65534) }
    }

    /// The copy `runUnprivileged` runs (made once per test process), nil when it could not be made.
    private static let unprivilegedExecutable: String? = {
        let copy = TestScratch.path + "healthrouter-unprivileged-\(getpid())"
        try? FileManager.default.removeItem(atPath: copy)
        guard (try? FileManager.default.copyItem(atPath: executable, toPath: copy)) != nil,
              (try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy)) != nil else { return nil }
        return copy
    }()

    private struct CannotCopyExecutable: Error {}

    private static func unprivilegedCopy() throws -> String {
        guard let copy = unprivilegedExecutable else { throw CannotCopyExecutable() }
        return copy
    }

    /// Starts `healthrouter arguments…` in `directory` on a pseudo-terminal (util-linux's `script`,
    /// from bsdutils), without waiting: what it writes there (standard output and error together,
    /// as a terminal shows them) comes out of the returned pipe.
    public static func startOnTerminal(_ arguments: [String], in directory: String) throws -> (process: Process, screen: Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let command = ([executable] + arguments).map { "'\($0)'" }.joined(separator: " ")
        process.arguments = ["--quiet", "--return", "--command", command, "/dev/null"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardInput = FileHandle.nullDevice
        let screen = Pipe()
        process.standardOutput = screen
        try process.run()
        return (process, screen)
    }

    /// Starts `healthrouter arguments…` without waiting (`shellSetup` as for `run`).
    public static func start(_ arguments: [String], in directory: String, environment: [String: String] = [:],
                             shellSetup: String? = nil) throws -> Process {
        let process = Process()
        if let shellSetup {
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", shellSetup + "; exec \"$0\" \"$@\"", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { _, new in new }
        process.environment = env
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        return process
    }

    /// The exit codes `healthrouter <command> --help` lists: every number that starts an item of
    /// its `exit codes:` paragraph. A test that sees a command exit with a code checks it is here.
    public static func exitCodesInHelp(_ command: String) throws -> Set<Int32> {
        let help = try run([command, "--help"], in: TestScratch.path).stdout
        guard let start = help.range(of: "exit codes:") else { return [] }
        let paragraph = help[start.upperBound...].components(separatedBy: "\n\n")[0]
        var codes: Set<Int32> = []
        let words = paragraph.split(whereSeparator: { $0 == " " || $0 == "\n" })
        for (index, word) in words.enumerated() {
            // An item starts the paragraph or follows a comma: `0 done, 64 wrong options`.
            let startsItem = index == 0 || words[index - 1].hasSuffix(",")
            if startsItem, let code = Int32(word) { codes.insert(code) }
        }
        return codes
    }

    /// Runs the repository's export generator.
    public static func generateExport(records: Int, to path: String, zip: Bool, quirks: Bool, seed: Int = 3) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["python3", repository + "/scripts/generate-export.py", "--records", String(records),
                         "--out", path, "--seed", String(seed)]
        if zip { arguments.append("--zip") }
        if quirks { arguments.append("--quirks") }
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw GeneratorFailed() }
    }

    public struct GeneratorFailed: Error {}
}

/// A fresh empty directory in `TestScratch.path`.
public func makeTemporaryDirectory(_ label: String = "e2e") -> String {
    let path = TestScratch.path + "\(label)-\(UUID().uuidString)"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Writes `yaml` as `hr.yaml` in `directory` and returns its path, for `--config`.
public func writeConfig(_ yaml: String, in directory: String) throws -> String {
    let path = directory + "/hr.yaml"
    try yaml.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

/// Whether `condition` holds within `seconds`, checked every `interval` microseconds.
public func eventually(within seconds: Double = 5, every interval: UInt32 = 10_000, _ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(interval)
    }
    return condition()
}

/// Holds `<stateDirectory>/import.lock` (its folder made when missing) as a running import would,
/// recording `pid` in it; returns the descriptor, whose closing lets go. Throws when it cannot.
public func holdImportLock(in stateDirectory: String, pid: String = "4242") throws -> Int32 {
    struct CannotHoldLock: Error {}
    try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
    let held = open(stateDirectory + "/import.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard held >= 0 else { throw CannotHoldLock() }
    guard flock(held, LOCK_EX) == 0 else {
        close(held)
        throw CannotHoldLock()
    }
    let text = Array("\(pid)\n".utf8)
    _ = pwrite(held, text, text.count, 0)
    return held
}
