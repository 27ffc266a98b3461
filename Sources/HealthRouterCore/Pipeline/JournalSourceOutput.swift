import Foundation
import Synchronization

/// The `SourceOutput` a finite source writes into: appends batches to the journal,
/// wakes the sink workers, and keeps the counts the import summary and the progress
/// line show. Used from the source's thread; its counters may be read from any thread.
///
/// With `bufferLimit` > 0 it gathers items until that many are pending and appends them
/// in one transaction (far fewer pages written for the journal's id index) on its own
/// thread, while the source goes on reading; `finish()` appends the rest and waits.
/// That is for files only, whose items are read again after a crash: a source that
/// acknowledges what it receives (an HTTP push) uses 0, so `emit` returns only once
/// its items are durable.
public final class JournalSourceOutput: SourceOutput, @unchecked Sendable {
    // @unchecked: `journal` is used by one thread at a time (the source's, or the
    // append queue's, one block after another); `pending` only by the source's thread;
    // everything else is behind a Mutex or is a thread-safe Dispatch object.
    private let journal: Journal
    private let sourceName: String
    private let control: WorkerControl
    private let counters = Mutex(ImportCounters())
    private let bufferLimit: Int
    private var pending: [HealthItem] = []
    private let appendQueue = DispatchQueue(label: "healthrouter.journal-append")
    /// At most one batch handed to the append queue while the source gathers the next: the
    /// source cannot run far ahead (each batch held is 5,000 decoded items in memory).
    private let slots = DispatchSemaphore(value: 1)
    private let failure = Mutex<String?>(nil)

    private let feed: LiveFeed?

    public init(journal: Journal, sourceName: String, control: WorkerControl, bufferLimit: Int = 0, feed: LiveFeed? = nil) {
        self.journal = journal
        self.sourceName = sourceName
        self.control = control
        self.bufferLimit = bufferLimit
        self.feed = feed
    }

    public func emit(_ items: [HealthItem]) throws {
        guard !items.isEmpty else { return }
        if bufferLimit == 0 {
            var items = items
            try append(&items)
            return
        }
        // Otherwise filled up to exactly `bufferLimit`: the array is allocated once at that
        // size, and each batch is what a worker writes in one transaction.
        var rest = items[...]
        while !rest.isEmpty {
            let taken = rest.prefix(bufferLimit - pending.count)
            pending.append(contentsOf: taken)
            rest = rest.dropFirst(taken.count)
            if pending.count >= bufferLimit { try handOff() }
        }
    }

    /// A full batch as the source gathered it (the export parser hands over 5,000 items and the
    /// few its last chunk of XML added) goes on as it is: taken, not copied item by item (a copy
    /// retains every string of every sample, and the source's array then releases them all).
    public func emit(taking items: inout [HealthItem]) throws {
        guard bufferLimit > 0, pending.isEmpty, items.count >= bufferLimit else {
            try emit(items)
            items.removeAll(keepingCapacity: true)
            return
        }
        swap(&pending, &items)
        try handOff()
    }

    /// After the batches handed on before it (none: an export's date comes first), on the thread
    /// that appends them.
    public func inputWritten(at date: Timestamp, userId: String?) {
        appendQueue.async { [self] in
            do {
                try journal.noteInputWritten(at: date, userId: userId)
            } catch {
                failure.withLock { $0 = $0 ?? "\(error)" }
            }
        }
    }

    /// Appends whatever is buffered and waits until every batch is durable. Called when
    /// the source returned or threw. Returns (or throws) only once the append queue has run
    /// everything handed to it, after a failed append too: nothing of this input then touches
    /// the journal while the caller goes on to the next.
    public func finish() throws {
        let handedOff = Result { try handOff() }
        appendQueue.sync {}
        try handedOff.get()
        try rethrowFailure()
    }

    private func handOff() throws {
        try rethrowFailure()
        guard !pending.isEmpty else { return }
        // Boxed, so that the append queue holds the only reference and can move the items out.
        let batch = PendingBatch(pending)
        pending = []
        pending.reserveCapacity(bufferLimit)
        slots.wait()
        appendQueue.async { [self] in
            defer { slots.signal() }
            guard failure.withLock({ $0 == nil }) else { return }
            var items = batch.items
            batch.items = []
            do {
                try append(&items)
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
        }
    }

    /// Whether the journal's commits reach the disk before their entries go to the sinks.
    var journalCommitsAreDurable: Bool { journal.commitsAreDurable }

    /// Whether the journal refused a batch (disk full, database damaged): the state directory is
    /// at fault, not the input.
    public var journalRefused: Bool { failure.withLock { $0 != nil } }

    private func rethrowFailure() throws {
        if let message = failure.withLock({ $0 }) { throw JournalAppendFailed(message: message) }
    }

    private func append(_ items: inout [HealthItem]) throws {
        let result: AppendResult
        if let feed {
            feed.waitForRoom()
            let appended = try journal.appendCollecting(taking: &items, source: sourceName)
            feed.publish(appended.entries)
            result = appended.result
        } else {
            result = try journal.append(items, source: sourceName)
        }
        counters.withLock { $0.appended.merge(result) }
        if result.lastSequence != nil { control.notifyAppended() }
    }

    public func skipped(_ reason: String, location: String?) {
        counters.withLock {
            $0.skipped[reason, default: 0] += 1
            if $0.skippedExamples[reason] == nil, let location { $0.skippedExamples[reason] = location }
        }
    }

    public func progress(bytes: Int64, total: Int64?) {
        counters.withLock {
            $0.bytes = bytes
            $0.totalBytes = total
        }
    }

    /// A snapshot of the counts so far.
    public var snapshot: ImportCounters { counters.withLock { $0 } }
}

/// The journal refused a batch (disk full, database damaged): the source must stop.
public struct JournalAppendFailed: Error, CustomStringConvertible {
    public var message: String
    public var description: String { "cannot write the journal: \(message)" }
}

/// A batch on its way to the append queue: the queue takes the array out, so it holds the only
/// reference and can move the items on instead of copying them.
private final class PendingBatch: @unchecked Sendable {
    // @unchecked: handed from the source's thread to the append queue, used by one at a time.
    var items: [HealthItem]
    init(_ items: [HealthItem]) { self.items = items }
}
