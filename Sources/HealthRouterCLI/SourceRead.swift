import Foundation
import HealthRouterCore

/// A store read to its end (`ReadableSink.readBack`) by `migrate --from`, `migrate --verify`'s
/// source and `dump --from`, across lost connections. A read that fails as a store that may come
/// back (`SinkError.unavailable`: its connection lost mid-read), and not because `visit` threw,
/// is opened again (`reconnect()`) and read again from its start, as a write is retried: five
/// tries, 0.5 s to 4 s apart (`SinkWorker.Settings.oneShot`), counted afresh once the caller's
/// resume point moved on since the last failure.
///
/// A store that holds what cannot be read (`SinkError.unreadable`: a row edited by hand, a damaged
/// file) is not read again, as no retry reads it: the read fails at once, exit 65 (the store's
/// data are not right), naming the sink.
///
/// A store is read in an order that stays the same while it is unchanged, so the items up to the
/// caller's resume point are the same ones when it is read again: their ids must hash to the
/// digest the caller kept (`ReadOrderDigest`), else the read throws `SourceChanged` (rows added or
/// deleted before that point since) instead of handing on an item twice or passing one over.
final class SourceRead {
    private let reader: any ReadableSink
    /// The sink's name in the config, for the failure of a store that cannot be read.
    private let sink: String
    /// The hash of the ids read so far in this pass, in their order: after `visit` was given an
    /// item, the digest of the items up to it.
    private(set) var order = ReadOrderDigest()
    /// Told of each retry: the failure, the attempt that failed (1-based), the attempts allowed
    /// and the seconds until the next.
    private let onRetry: (any Error, Int, Int, Double) -> Void
    /// Called once the store is open again, before it is read again (`DirectDelivery.rewind()`).
    var onReopen: () -> Void = {}

    init(_ reader: any ReadableSink, sink: String, onRetry: @escaping (any Error, Int, Int, Double) -> Void) {
        self.reader = reader
        self.sink = sink
        self.onRetry = onRetry
    }

    /// Reads the store to its end. `visit` gets every item with its position (from 1), in the
    /// store's order; the items of a pass read again after a failure come again from position 1.
    /// `resumePoint`, asked before each pass, is the position up to which the caller keeps what
    /// it was given, and `order.value` when it was given that item (nil: not checked, as for
    /// position 0). Throws `SourceChanged`, what `visit` throws, a `CommandFailure` (65) for a
    /// store that cannot be read, or the store's failure once five tries in a row failed.
    func read(resumePoint: () -> (position: Int64, digest: Int64?), _ visit: (Int64, HealthItem) throws -> Void) throws {
        let retries = SinkWorker.Settings.oneShot
        let maxAttempts = retries.maxAttempts ?? 5
        var failures = 0
        var failedAt: Int64 = -1
        while true {
            order = ReadOrderDigest()
            let (skip, digest) = resumePoint()
            var position: Int64 = 0
            var visitFailed = false
            do {
                try reader.readBack { item in
                    position += 1
                    order.add(item)
                    if position == skip, let digest, order.value != digest { throw SourceChanged() }
                    do {
                        try visit(position, item)
                    } catch {
                        visitFailed = true
                        throw error
                    }
                }
                if position < skip, digest != nil { throw SourceChanged() }
                return
            } catch SinkError.unreadable(let reason) where !visitFailed {
                throw CommandFailure(message: "sink '\(sink)' cannot be read back: \(reason)",
                                     hint: "no retry reads it: mend the store as said, then run the command again", code: .dataError)
            } catch let error as SinkError where error.isTransient && !visitFailed {
                // Counted afresh once the caller kept more since the last failure.
                let kept = resumePoint().position
                if kept > failedAt { failures = 0 }
                failedAt = kept
                var failure = error
                while true {
                    failures += 1
                    guard failures < maxAttempts else { throw failure }
                    let delay = retries.retryDelay(afterAttempt: failures, error: failure)
                    onRetry(failure, failures, maxAttempts, delay)
                    Thread.sleep(forTimeInterval: delay)
                    do {
                        try reader.reconnect()
                        break
                    } catch let again as SinkError where again.isTransient {
                        failure = again
                    }
                }
                onReopen()
            }
        }
    }
}

/// The input of an interrupted migration, or of a read a lost connection interrupted, changed
/// before the position it reached.
struct SourceChanged: Error {}
