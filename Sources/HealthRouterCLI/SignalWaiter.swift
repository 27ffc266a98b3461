import Dispatch
import Foundation
import HealthRouterCore
import Synchronization

/// Blocks until one of `signals` arrives. The signals are blocked (never their default action),
/// and Dispatch sources read them, so the handler runs as ordinary code, not in a signal handler.
/// Signals received and not yet waited for are kept as a set, so none is lost behind another
/// (SIGTERM then SIGHUP at once: the stop is not overwritten by the reload) and repeats merge (a
/// burst of SIGHUPs during a reload is one more reload, not one each).
final class SignalWaiter {
    private let semaphore = DispatchSemaphore(value: 0)
    /// The signals received and not yet returned by `wait`, and the logger that says so (a
    /// Sendable box, so the handler can capture it).
    private final class Pending: Sendable {
        let numbers = Mutex<Set<Int32>>([])
        let logger: Mutex<Logger?> = Mutex(nil)
    }
    private let pending = Pending()
    private let sources: [any DispatchSourceSignal]

    /// Where each signal is logged: set once the config says how (a signal before that is kept,
    /// not logged). `run` makes the waiter before it loads its config, so that a signal sent right
    /// after the process started (a `systemctl reload` after `start`), pending since, is acted on.
    var logger: Logger? {
        get { pending.logger.withLock { $0 } }
        set { pending.logger.withLock { $0 = newValue } }
    }

    init(signals: [Int32], logger: Logger? = nil) {
        var sources: [any DispatchSourceSignal] = []
        pending.logger.withLock { $0 = logger }
        // Blocked, not ignored: setting SIG_IGN would drop one already pending (sent while the
        // daemon started; `main` blocks them in every thread from the start), and Dispatch reads
        // blocked ones from its signalfd. Blocked here too for a caller that did not.
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for number in signals { sigaddset(&blocked, number) }
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        for number in signals {
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [semaphore, pending] in
                pending.logger.withLock { $0 }?.info("signal received", [("signal", Self.name(number))])
                pending.numbers.withLock { _ = $0.insert(number) }
                semaphore.signal()
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    deinit {
        for source in sources { source.cancel() }
    }

    /// Blocks until a signal is pending and returns it: a stop (any signal but SIGHUP) before a
    /// reload; SIGHUPs received since the last one returned count as one.
    func wait() -> Int32 {
        while true {
            let next = pending.numbers.withLock { numbers -> Int32? in
                guard let chosen = numbers.first(where: { $0 != SIGHUP }) ?? numbers.first else { return nil }
                // A stop stays pending: every later wait returns it too.
                if chosen == SIGHUP { numbers.remove(chosen) }
                return chosen
            }
            if let next { return next }
            semaphore.wait()
        }
    }

    static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: String(number)
        }
    }
}
