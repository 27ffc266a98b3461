import Foundation

/// Turns repeated byte strings (attribute values such as a type, unit, source name,
/// device or metadata key) into shared `String`s: a hit costs a hash and a compare,
/// not an allocation.
///
/// Entries are numbered from 0 in the order they were first seen; `string(at:)` gives
/// the text. When more than `maximumEntries` distinct values arrive (a value that is
/// unique per record, such as a device description with its per-record address), the
/// interner forgets everything and starts over, so memory stays bounded; `generation`
/// counts those restarts so callers holding entry numbers can notice.
///
/// A struct, so that its arrays are reached without a dynamic exclusivity check each.
struct ByteStringInterner {
    private struct Entry {
        var hash: UInt64
        var start: Int
        var length: Int
    }

    private var slots: [Int32]            // entry number + 1; 0 is empty
    private var entries: [Entry] = []
    private var arena: [UInt8] = []
    private var strings: [String] = []
    private let maximumEntries: Int
    private(set) var generation = 0

    init(maximumEntries: Int = 1 << 16) {
        self.maximumEntries = maximumEntries
        slots = [Int32](repeating: 0, count: 256)
    }

    var count: Int { strings.count }

    func string(at entry: Int) -> String { strings[entry] }

    /// The shared string for `bytes` (attribute text, `&#38;` decoded: see `AttributeText`).
    mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        strings[intern(bytes)]
    }

    /// The two entries returned last (-1: none): records come in runs of one type, unit, source
    /// and device, so a compare with them usually spares the hash.
    private var recent = (-1, -1)

    /// The entry number of `bytes`, adding it when new.
    mutating func intern(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        if recent.0 >= 0, entries[recent.0].length == bytes.count, equals(entries[recent.0], bytes) { return recent.0 }
        if recent.1 >= 0, entries[recent.1].length == bytes.count, equals(entries[recent.1], bytes) {
            recent = (recent.1, recent.0)
            return recent.0
        }
        let found = lookUpOrAdd(bytes)
        recent = (found, recent.0)
        return found
    }

    private mutating func lookUpOrAdd(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let hash = Self.hash(bytes)
        var mask = slots.count - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        while true {
            let slot = Int(slots[index])
            if slot == 0 { break }
            let entry = entries[slot - 1]
            if entry.hash == hash && entry.length == bytes.count && equals(entry, bytes) { return slot - 1 }
            index = (index + 1) & mask
        }
        if strings.count >= maximumEntries {
            reset()
            mask = slots.count - 1
            index = Int(truncatingIfNeeded: hash) & mask
        } else if (strings.count + 1) * 2 > slots.count {
            grow()
            mask = slots.count - 1
            index = Int(truncatingIfNeeded: hash) & mask
            while slots[index] != 0 { index = (index + 1) & mask }
        }
        let entry = strings.count
        entries.append(Entry(hash: hash, start: arena.count, length: bytes.count))
        arena.append(contentsOf: bytes)
        strings.append(AttributeText.string(bytes))
        slots[index] = Int32(entry + 1)
        return entry
    }

    private func equals(_ entry: Entry, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return true }
        return arena.withUnsafeBufferPointer { stored in
            memcmp(stored.baseAddress! + entry.start, base, bytes.count) == 0
        }
    }

    private mutating func grow() {
        var bigger = [Int32](repeating: 0, count: slots.count * 2)
        let mask = bigger.count - 1
        for entry in 0..<entries.count {
            var index = Int(truncatingIfNeeded: entries[entry].hash) & mask
            while bigger[index] != 0 { index = (index + 1) & mask }
            bigger[index] = Int32(entry + 1)
        }
        slots = bigger
    }

    private mutating func reset() {
        recent = (-1, -1)
        slots = [Int32](repeating: 0, count: 256)
        entries.removeAll(keepingCapacity: true)
        arena.removeAll(keepingCapacity: true)
        strings.removeAll(keepingCapacity: true)
        generation += 1
    }

    /// FNV-1a, mixed at the end so the low bits (the slot index) depend on every byte.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        hash ^= hash >> 29
        hash = hash &* 0xbf58_476d_1ce4_e5b9
        return hash ^ (hash >> 32)
    }
}
