import Foundation
import Synchronization

/// Writes to file descriptor 2 (Swift 6 forbids touching the C `stderr` global).
public enum StandardError {
    private static let lock = Mutex(())
    public static func write(_ text: String) {
        lock.withLock { _ in
            var copy = text
            copy.withUTF8 { bytes in
                var offset = 0
                while offset < bytes.count {
                    let n = Foundation.write(2, bytes.baseAddress! + offset, bytes.count - offset)
                    if n <= 0 { break }
                    offset += n
                }
            }
        }
    }
}
