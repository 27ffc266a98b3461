/// Maps libxml2's name pointers to `XMLName` and `String` without hashing the text.
///
/// libxml2 hands element and attribute local names out of its per-parser dictionary, so
/// one name is one pointer for the life of a parser: the table caches by address (an
/// open-addressing table of a few hundred slots) and falls back to the text on a miss.
/// Use one table per parser context.
final class XMLNameTable {
    private struct Slot {
        var address: UInt = 0
        var name: XMLName = .other
        var text: String = ""
    }

    private static let capacity = 1024
    private var slots = [Slot](repeating: Slot(), count: XMLNameTable.capacity)
    private var used = 0

    /// The known name `pointer` spells, or `.other`.
    func name(_ pointer: UnsafePointer<UInt8>) -> XMLName {
        slots[slotIndex(pointer)].name
    }

    /// The text of the name at `pointer`.
    func text(_ pointer: UnsafePointer<UInt8>) -> String {
        slots[slotIndex(pointer)].text
    }

    private func slotIndex(_ pointer: UnsafePointer<UInt8>) -> Int {
        let address = UInt(bitPattern: pointer)
        let mask = XMLNameTable.capacity - 1
        var index = Int(truncatingIfNeeded: (address >> 3) &* 0x9E37_79B9_7F4A_7C15 >> 54) & mask
        while true {
            let slot = slots[index]
            if slot.address == address { return index }
            if slot.address == 0 { break }
            index = (index + 1) & mask
        }
        // A miss: names are few, so the table only fills up if the parser does not
        // intern them; then start over rather than grow.
        if used >= XMLNameTable.capacity / 2 {
            slots = [Slot](repeating: Slot(), count: XMLNameTable.capacity)
            used = 0
            return slotIndex(pointer)
        }
        let text = String(cString: pointer)
        slots[index] = Slot(address: address, name: XMLName.byText[text] ?? .other, text: text)
        used += 1
        return index
    }
}
