import Foundation
import HealthRouterCore
import Synchronization

/// The one-line progress display of an import on a terminal: bytes, records,
/// rate and ETA, redrawn in place four times a second. Silent when standard error
/// is not a terminal (logs and CI stay clean).
final class ProgressLine: Sendable {
    private let label: String
    private let outputs: [JournalSourceOutput]
    private let workers: [SinkWorker]
    private let started = Date()
    private let running = Mutex(true)
    /// Whether the journal is being pruned (`journal.retain`), after the reading and delivery.
    private let pruning = Mutex(false)
    private let done = DispatchSemaphore(value: 0)
    let enabled: Bool

    init(label: String, outputs: [JournalSourceOutput], workers: [SinkWorker], enabled: Bool) {
        self.label = label
        self.outputs = outputs
        self.workers = workers
        self.enabled = enabled
    }

    static var standardErrorIsTerminal: Bool { isatty(2) == 1 }

    /// Whether a progress line is drawn: not with `--quiet`, not with `--log-format json` (its
    /// lines would be no JSON), and only on a terminal.
    static func isDrawn(quiet: Bool, format: Logger.Format) -> Bool {
        !quiet && format == .text && standardErrorIsTerminal
    }

    func start() {
        guard enabled else { return }
        let thread = Thread { [self] in
            while running.withLock({ $0 }) {
                draw()
                Thread.sleep(forTimeInterval: 0.25)
            }
            done.signal()
        }
        thread.start()
    }

    func stop() {
        guard enabled else { return }
        running.withLock { $0 = false }
        done.wait()
        draw()
        StandardError.write("\n")
    }

    /// Says on the line, drawn at once, that the journal's pruning began (true) or ended (false):
    /// a prune of millions of entries takes seconds, after the line reached 100%.
    func notePruning(_ started: Bool) {
        guard enabled else { return }
        pruning.withLock { $0 = started }
        if started { draw() }
    }

    private func draw() {
        let snapshots = outputs.map(\.snapshot)
        let bytes = snapshots.reduce(Int64(0)) { $0 + $1.bytes }
        let totals = snapshots.compactMap(\.totalBytes)
        let total: Int64? = totals.count == snapshots.count && !totals.isEmpty ? totals.reduce(0, +) : nil
        let records = snapshots.reduce(0) { $0 + $1.records }
        let elapsed = max(Date().timeIntervalSince(started), 0.001)
        var line = "\(label)  "
        if let total, total > 0 {
            let fraction = min(1, Double(bytes) / Double(total))
            line += "\(NumberText.bytes(bytes)) / \(NumberText.bytes(total))  \(Int(fraction * 100))%  "
            line += "\(NumberText.grouped(records)) records  \(NumberText.grouped(Int(Double(records) / elapsed)))/s"
            if fraction > 0.01 && fraction < 1 {
                line += "  ETA \(NumberText.duration(elapsed / fraction - elapsed))"
            }
        } else {
            line += "\(NumberText.bytes(bytes))  \(NumberText.grouped(records)) records  \(NumberText.grouped(Int(Double(records) / elapsed)))/s"
        }
        let head = snapshots.compactMap(\.appended.lastSequence).max() ?? 0
        let behind = workers.map { max(0, head - $0.progress.cursor) }.max() ?? 0
        if behind > 0 { line += "  sinks \(NumberText.grouped(behind)) behind" }
        if pruning.withLock({ $0 }) { line += "  pruning the journal (journal.retain)" }
        StandardError.write("\r\u{1B}[K" + line)
    }
}
