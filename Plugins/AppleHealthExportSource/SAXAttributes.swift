import CLibXML2

/// The attributes of one start tag as libxml2's SAX2 `startElementNs` passes them:
/// five pointers per attribute (local name, prefix, URI, value start, value end).
/// Values are byte ranges into libxml2's buffer, valid only during the callback.
struct SAXAttributes {
    let base: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    let count: Int

    /// The local name of attribute `index` (a pointer into libxml2's name dictionary).
    func name(_ index: Int) -> UnsafePointer<UInt8> {
        base![index * 5]!
    }

    /// The value of attribute `index`, not NUL-terminated.
    func value(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        let start = base![index * 5 + 3]!
        let end = base![index * 5 + 4]!
        return UnsafeBufferPointer(start: start, count: end - start)
    }
}
