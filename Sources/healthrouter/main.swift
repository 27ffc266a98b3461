import Foundation
import HealthRouterCLI

// At most two malloc arenas: with one per thread (glibc's default, up to 8 a core), memory
// freed on one worker thread is not reused by another, and an import's peak RSS grows.
// `mallopt` is declared in malloc.h, which the Glibc module does not import.
if let symbol = dlsym(nil, "mallopt") {
    typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
    let arenaMax: Int32 = -8  // M_ARENA_MAX
    _ = unsafeBitCast(symbol, to: MallOpt.self)(arenaMax, 2)
}
// Standard input, output and error closed by the caller (`healthrouter run >&- 2>&-`) would be
// the descriptors the next files opened get, and log lines would be written into them (the
// daemon's lock file): each closed one is /dev/null instead.
for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
    let opened = open("/dev/null", O_RDWR)
    if opened >= 0 && opened != descriptor { _ = dup2(opened, descriptor); close(opened) }
}
// Signals the parent left blocked (a test runner, some supervisors: the mask is inherited) are
// taken again: a blocked SIGQUIT would never quit, and its default action is all it has. `run`'s
// stop and reload signals are blocked instead, in every thread from here on: its `SignalWaiter`
// reads them (Dispatch, through a signalfd), and one sent while the daemon starts stays pending
// until then, where it was lost (ignored before Dispatch read them) or killed the process.
let arguments = Array(CommandLine.arguments.dropFirst())
var mask = sigset_t()
sigemptyset(&mask)
if HealthRouterCommand.commandName(arguments) == "run" {
    for number in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&mask, number) }
}
sigprocmask(SIG_SETMASK, &mask, nil)
// Ctrl-\ quits, as it does any program (the Swift runtime's crash reporter took SIGQUIT for a
// crash, printed a backtrace claiming one, and the process went on).
signal(SIGQUIT, SIG_DFL)
// As process 1 (a container run without --init) the kernel ignores a signal whose action is
// the default: Ctrl-C and `docker stop` would do nothing. Ended as the default action would end
// it (what an import, backfill or migration wrote stays; a run again resumes); `run` replaces
// these with its graceful stop.
if getpid() == 1 {
    signal(SIGINT) { number in _exit(128 + number) }
    signal(SIGTERM) { number in _exit(128 + number) }
    signal(SIGQUIT) { number in _exit(128 + number) }
}
// An argument that is not UTF-8 (a file named in Latin-1) reaches Swift with its bad bytes
// replaced, and the file would be called missing: say what it is instead.
for index in 1..<Int(CommandLine.argc) {
    guard let argument = CommandLine.unsafeArgv[index], String(validatingCString: argument) == nil else { continue }
    let shown = String(decoding: UnsafeBufferPointer(start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self),
                                                     count: strlen(argument)), as: UTF8.self)
    exit(HealthRouterCommand.refuseNonUTF8(argument: (index, shown), arguments: arguments))
}
exit(HealthRouterCommand.main(arguments))
