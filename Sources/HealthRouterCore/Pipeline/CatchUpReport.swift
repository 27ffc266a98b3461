import Foundation

/// What a daemon's sink worker says in its log while it works through a backlog (a sink added to
/// the config of a big journal, a store that was down for long): a line when it starts, one at
/// most every `progressInterval` while it lasts, and one when it has caught up. Without them, a
/// catch-up of millions of entries was a minute and more of silence.
///
/// Counted from sequence numbers alone (the journal's head and the worker's cursor), never by
/// reading the journal: what is after the cursor is every entry, of which the sink's routes may
/// select fewer (`rows_written` says how many it wrote). The backlog is the head when the
/// catch-up began: entries pushed meanwhile are not waited for.
struct CatchUpReport {
    /// One log line: its message, its fields of counts and seconds (numbers in a JSON log) and of
    /// text.
    struct Line {
        var message: String
        var numbers: [(String, LogNumber)]
        var fields: [(String, String)] = []
    }

    /// The smallest backlog said in the log: a smaller one is written in a few seconds.
    static let threshold: Int64 = 10_000
    /// The longest the log stays silent while a catch-up lasts.
    static let progressInterval: TimeInterval = 30

    /// The cursor and rows written when the catch-up began.
    let from: Int64
    let writtenBefore: Int
    /// The journal's head when the catch-up began: reached, the sink has caught up.
    let target: Int64
    let started: Date
    private var lastSaid: Date

    /// A catch-up from `cursor` to `head`, or nil when the backlog is under `threshold`.
    init?(cursor: Int64, head: Int64, written: Int, now: Date = Date(), threshold: Int64 = Self.threshold) {
        guard head - cursor >= threshold else { return nil }
        from = cursor
        target = head
        writtenBefore = written
        started = now
        lastSaid = now
    }

    /// The line said when it begins.
    var startLine: Line {
        Line(message: "catching up: delivering the journal entries after the sink's cursor",
             numbers: [("entries", LogNumber(target - from)), ("cursor", LogNumber(from)), ("head", LogNumber(target))])
    }

    /// What to say after the worker moved its cursor to `cursor` (`written`: its rows written so
    /// far, all told), or after it found nothing more to read (`idle`): the caught-up line once
    /// `target` is reached (the caller then ends the report), a progress line when
    /// `progressInterval` passed since the last line, else nothing.
    mutating func line(cursor: Int64, written: Int, idle: Bool = false, now: Date = Date()) -> Line? {
        let done = Int(max(0, min(cursor, target) - from)), total = Int(target - from)
        let rows = written - writtenBefore
        let seconds = now.timeIntervalSince(started)
        if cursor >= target || idle {
            return Line(message: "caught up",
                        numbers: [("seconds", LogNumber(seconds, places: 1)), ("entries", LogNumber(done)),
                                  ("rows_written", LogNumber(rows))])
        }
        guard now.timeIntervalSince(lastSaid) >= Self.progressInterval else { return nil }
        lastSaid = now
        let fields = done > 0 ? [("eta", NumberText.duration(seconds * Double(total - done) / Double(done)))] : []
        return Line(message: "catching up",
                    numbers: [("percent", LogNumber(total > 0 ? done * 100 / total : 0)), ("entries_done", LogNumber(done)),
                              ("entries", LogNumber(total)), ("rows_written", LogNumber(rows))],
                    fields: fields)
    }
}
