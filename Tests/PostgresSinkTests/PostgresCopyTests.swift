import Foundation
import Testing
import PostgresClient

/// COPY sent in parts: the server's verdict on bad data reaches the caller with its SQLSTATE
/// (a data error, so the sink dead-letters the row) however much was sent after the bad row.
@Suite struct PostgresCopyTests {
    @Test func errorsOfTheDataAreToldFromFailuresOfTheServer() {
        for state in ["21000", "22P02", "23505", "54000"] {
            #expect(PostgresError(sqlState: state, message: "", operation: "test").isDataError, "\(state)")
        }
        for state in ["08006", "40001", "57014", "53100", nil] {
            #expect(!PostgresError(sqlState: state, message: "", operation: "test").isDataError, "\(String(describing: state))")
        }
    }

    @Test func badDataEarlyInAStreamedCopyIsADataError() throws {
        guard let url = PostgresTestDatabase.url else { return }
        let connection = try PostgresTestDatabase.connect(url)
        defer { connection.close() }
        var caught: PostgresError?
        do {
            try connection.transaction {
                try connection.execute("CREATE TEMP TABLE copied (n integer) ON COMMIT DROP")
                try connection.beginCopy("COPY copied (n) FROM STDIN")
                let bad = Array("not a number\n".utf8)
                try bad.withUnsafeBufferPointer { try connection.putCopyData($0) }
                // Enough after it to fill the socket buffers, so libpq reads the server's error while sending.
                let good = [UInt8](repeating: 0, count: 1 << 20).enumerated().map { $0.offset % 2 == 0 ? UInt8(ascii: "7") : 10 }
                for _ in 0..<32 { try good.withUnsafeBufferPointer { try connection.putCopyData($0) } }
                try connection.endCopy()
            }
        } catch let error as PostgresError {
            caught = error
        }
        #expect(caught?.sqlState == "22P02")
        #expect(caught?.isDataError == true)
        // The connection is usable afterwards.
        #expect(try connection.execute("SELECT 1").int(0, 0) == 1)
    }
}
