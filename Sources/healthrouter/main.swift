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
exit(HealthRouterCommand.main(Array(CommandLine.arguments.dropFirst())))
