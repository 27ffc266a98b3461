/// The sink's files whose descriptors are open, least recently used first: at most `limit`, so a
/// folder of many types (or a client sending made-up type names) holds no more descriptors than
/// that. A file is registered after its `flush`, which fsynced what it wrote, so closing it loses
/// nothing a batch's commit relies on; it opens again at its next `flush`.
struct NDJSONOpenFiles {
    let limit: Int
    private var files: [NDJSONFile] = []

    init(limit: Int) {
        precondition(limit > 0)
        self.limit = limit
    }

    /// Records that `file` was just flushed: it becomes the most recently used (when its
    /// descriptor is open), and the least recently used beyond `limit` is closed.
    mutating func used(_ file: NDJSONFile) {
        if let position = files.lastIndex(where: { $0 === file }) { files.remove(at: position) }
        guard file.isOpen else { return }
        files.append(file)
        while files.count > limit { files.removeFirst().close() }
    }

    /// Forgets every file (their owner closes them).
    mutating func removeAll() { files.removeAll() }
}
