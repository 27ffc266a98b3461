import Foundation
import Synchronization

/// Warnings that can come in floods (refused pushes and skipped elements, which clients cause;
/// dead letters), at most one line per key per `interval`, so that a flood cannot fill the
/// disk. The first line of a key is written at once; those that follow within `interval` of the
/// last written one are counted, and the next line written for that key carries
/// `suppressed=<count>`. Keys must come from a small set (route and reason), never from what a
/// client sends.
public final class ThrottledWarnings: Sendable {
    public let logger: Logger
    /// Seconds between two lines of one key.
    public let interval: Double
    private let clock: @Sendable () -> Double
    private let keys = Mutex([String: (writtenAt: Double, suppressed: Int)]())

    /// - Parameter clock: seconds on a monotonic clock (a test's own, to be told the time).
    public init(logger: Logger, interval: Double = 10,
                clock: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }) {
        self.logger = logger
        self.interval = interval
        self.clock = clock
    }

    /// Writes `message` with `fields` and `numbers` at warning level, unless a line of `key` was
    /// written less than `interval` ago (then it is only counted).
    public func warn(key: String, _ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)],
                     numbers: @autoclosure () -> [(String, LogNumber)] = []) {
        guard logger.minimumLevel <= .warning, let suppressed = admit(key: key) else { return }
        logger.warning(message(), fields(), numbers: numbers() + (suppressed > 0 ? [("suppressed", LogNumber(suppressed))] : []))
    }

    /// Whether a line of `key` may be written now: nil when not (it is counted), else how many
    /// were left out since the last one written.
    public func admit(key: String) -> Int? {
        let now = clock()
        return keys.withLock { keys in
            if let last = keys[key], now - last.writtenAt < interval {
                keys[key]?.suppressed += 1
                return nil
            }
            let suppressed = keys[key]?.suppressed ?? 0
            keys[key] = (now, 0)
            return suppressed
        }
    }
}
