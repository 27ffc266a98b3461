import CSQLite3
import Foundation
import TestSupport
import Testing
@testable import HealthRouterCore

@Suite struct SQLiteBindingArenaTests {
    func rows(_ database: SQLiteDatabase) throws -> [String] {
        let statement = try database.prepare("SELECT quote(a), quote(b), quote(c) FROM t ORDER BY rowid")
        var lines: [String] = []
        while try statement.step() {
            lines.append((0..<3).map { statement.string(Int32($0)) ?? "?" }.joined(separator: "|"))
        }
        return lines
    }

    @Test func rowsBoundThroughOneArenaKeepTheirOwnText() throws {
        let database = try SQLiteDatabase(path: makeTemporaryDirectory() + "/arena.sqlite")
        try database.execute("CREATE TABLE t (a, b, c)")
        let insert = try database.prepare("INSERT INTO t (a, b, c) VALUES (?, ?, ?)")
        // Room for 16 bytes: the first row's values fit; the second row's long value does not
        // and is bound as a copy; the arena's bytes are reused row after row.
        let arena = SQLiteBindingArena(capacity: 16)
        let values: [(String?, String?, String?)] = [
            ("héllo", "", nil),
            ("0123456789", "this one is longer than the arena", "x"),
            ("third", "row", "ok"),
        ]
        for (a, b, c) in values {
            arena.reset()
            arena.bind(insert, 1, a)
            arena.bind(insert, 2, b)
            arena.bind(insert, 3, c)
            try insert.step()
            sqlite3_reset(insert.handle)
            sqlite3_clear_bindings(insert.handle)
        }
        #expect(try rows(database) == [
            "'héllo'|''|NULL",
            "'0123456789'|'this one is longer than the arena'|'x'",
            "'third'|'row'|'ok'",
        ])
    }

    @Test func bytesAreBoundAsText() throws {
        let database = try SQLiteDatabase(path: makeTemporaryDirectory() + "/arena.sqlite")
        try database.execute("CREATE TABLE t (a, b, c)")
        let insert = try database.prepare("INSERT INTO t (a, b, c) VALUES (?, ?, ?)")
        let arena = SQLiteBindingArena()
        Array("2024-01-01T00:00:00.000Z".utf8).withUnsafeBytes { arena.bind(insert, 1, text: $0) }
        arena.bind(insert, 2, text: UnsafeRawBufferPointer(start: nil, count: 0))
        arena.bind(insert, 3, "{\"k\":1}")
        try insert.step()
        #expect(try rows(database) == ["'2024-01-01T00:00:00.000Z'|''|'{\"k\":1}'"])
        #expect(try database.scalarText("SELECT typeof(a) || typeof(b) || typeof(c) FROM t") == "texttexttext")
    }

    @Test func blobsAreBoundAsBlobsAndTooLargeOnesAsCopies() throws {
        let database = try SQLiteDatabase(path: makeTemporaryDirectory() + "/arena.sqlite")
        try database.execute("CREATE TABLE t (a, b, c)")
        let insert = try database.prepare("INSERT INTO t (a, b, c) VALUES (?, ?, ?)")
        let arena = SQLiteBindingArena(capacity: 8)
        for row in 0..<3 {
            arena.reset()
            [UInt8(row), 0, 0xFF].withUnsafeBytes { arena.bind(insert, 1, blob: $0) }
            Array(repeating: UInt8(0xAB), count: 20).withUnsafeBytes { arena.bind(insert, 2, blob: $0) }
            arena.bind(insert, 3, blob: UnsafeRawBufferPointer(start: nil, count: 0))
            try insert.run()
        }
        #expect(try rows(database) == (0..<3).map {
            "X'0\($0)00FF'|X'\(String(repeating: "AB", count: 20))'|X''"
        })
    }
}
