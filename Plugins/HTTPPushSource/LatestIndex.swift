import Foundation
import HealthRouterCore
import Synchronization

/// `GET /latest` (Pulso v1.2): per user and type key, the newest sample `end` in absolute
/// time, kept in its original string. Ties keep the first seen; ends without a UTC offset
/// are ignored. Kept in memory and in `<state>/http_push-<name>.sqlite`, so it survives
/// restarts; updated after each journal commit.
final class LatestIndex: Sendable {
    private struct Newest {
        var instant: Int64
        var text: String
        var order: Int
    }

    private struct State {
        var database: SQLiteDatabase
        var byUser: [String: [String: Newest]] = [:]
        var nextOrder = 0
    }

    private let state: Mutex<State>

    /// How far after now an end may lie and count (`PulsoBatchParser` leaves later ones out).
    static let futureAllowanceMilliseconds: Int64 = 86_400_000

    /// The latest end that counts now.
    static func latestAllowedEnd(now: Date = Date()) -> Int64 {
        Int64(now.timeIntervalSince1970 * 1_000) + futureAllowanceMilliseconds
    }

    init(path: String) throws {
        let database = try SQLiteDatabase(path: path)
        try database.execute("""
            CREATE TABLE IF NOT EXISTS latest(user TEXT NOT NULL, key TEXT NOT NULL, end_ms INTEGER NOT NULL,
                end_text TEXT NOT NULL, ord INTEGER NOT NULL, PRIMARY KEY(user, key))
            """)
        var loaded = State(database: database)
        let statement = try database.prepare("SELECT user, key, end_ms, end_text, ord FROM latest")
        // An end stored before ends ahead of now were left out (a device whose clock was wrong)
        // is left out too: the next end of its type takes its place.
        let latestAllowed = Self.latestAllowedEnd()
        while try statement.step() {
            if statement.int64(2) > latestAllowed { continue }
            let order = Int(statement.int64(4))
            loaded.byUser[statement.string(0) ?? "", default: [:]][statement.string(1) ?? ""] =
                Newest(instant: statement.int64(2), text: statement.string(3) ?? "", order: order)
            loaded.nextOrder = max(loaded.nextOrder, order + 1)
        }
        state = Mutex(loaded)
    }

    /// Records the ends of a committed batch for `user`.
    func record(_ ends: [(key: String, end: String, instant: Timestamp)], user: String) throws {
        try state.withLock { state in
            var changed: [(String, Newest)] = []
            var newest = state.byUser[user] ?? [:]
            for entry in ends where entry.instant.utcOffsetSeconds != nil {
                let instant = entry.instant.epochMilliseconds
                if let current = newest[entry.key], current.instant >= instant { continue }
                let order = newest[entry.key]?.order ?? state.nextOrder
                if newest[entry.key] == nil { state.nextOrder += 1 }
                let value = Newest(instant: instant, text: entry.end, order: order)
                newest[entry.key] = value
                changed.append((entry.key, value))
            }
            state.byUser[user] = newest
            guard !changed.isEmpty else { return }
            let database = state.database
            try database.transaction {
                let statement = try database.prepare(
                    "INSERT OR REPLACE INTO latest(user, key, end_ms, end_text, ord) VALUES (?1, ?2, ?3, ?4, ?5)")
                for (key, value) in changed {
                    statement.bind(1, user)
                    statement.bind(2, key)
                    statement.bind(3, value.instant)
                    statement.bind(4, value.text)
                    statement.bind(5, Int64(value.order))
                    try statement.run()
                }
            }
        }
    }

    /// The `/latest` body for `user`: `{"key": "end", …}` in first-seen order, Python spacing.
    func json(user: String) -> String {
        let entries = state.withLock { state in
            (state.byUser[user] ?? [:]).sorted { $0.value.order < $1.value.order }.map { ($0.key, $0.value.text) }
        }
        var writer = JSONWriter()
        var text = "{"
        for (index, (key, end)) in entries.enumerated() {
            if index > 0 { text += ", " }
            writer.reset(); writer.string(key); text += writer.text
            text += ": "
            writer.reset(); writer.string(end); text += writer.text
        }
        return text + "}"
    }
}
