/// A sink whose store can be read back as canonical items: the source side of
/// `healthrouter migrate` and `healthrouter dump --from SINK` (DESIGN.md §2, "Migration").
///
/// Contract: every requirement is called from the command's one thread, never during a
/// `write`; in this order: `missingStore` (before anything opens the store), then
/// `prepareForReading()` (or `prepare()`), then `readBack` (once or more).
public protocol ReadableSink: Sink {
    /// Visits every item the store holds, in an order that is the same on every call while the
    /// store is unchanged (a migration resumes by counting items), streaming (memory stays flat
    /// or bounded by an index of ids). Tombstones the store recorded come first, so that a
    /// sample stored again after its deletion survives replaying both. What the store's schema
    /// cannot hold comes back as the sink's README says (e.g. carried in metadata). Throwing
    /// from `visit` stops the read and is rethrown. A store that failed and may come back (a
    /// connection lost mid-read) throws `SinkError.unavailable`: the caller may `reconnect()` and
    /// read again from the start. A store that holds what cannot be read (a row edited by hand,
    /// a value the sink cannot decode, a damaged file) throws `SinkError.unreadable`, naming the
    /// store, the row and what to do: reading again cannot help.
    func readBack(_ visit: (HealthItem) throws -> Void) throws

    /// The file or folder the store would be, when it does not exist: asked before `prepare()`
    /// (which creates a missing store empty), so that reading a store that is not there fails
    /// instead of reading nothing. A database sink may connect to tell, and names the table as
    /// `postgres://host:port/db (table …)` (a URL, not a path). Nil when the store exists, or
    /// when that cannot be told: the default.
    var missingStore: String? { get }

    /// Called instead of `prepare()` by a command that only reads the store (`dump --from`,
    /// `migrate --from`, `migrate --verify-only`): opens it so that a store healthrouter may not
    /// change still reads — a read-only file or folder, a database role granted only SELECT.
    /// A store it may change is prepared as `prepare()` does (an older layout brought up to date).
    /// Throws as `prepare()` does. Default: `prepare()`.
    func prepareForReading() throws

    /// How many items `readBack` would visit now, when the store can tell without reading them
    /// (an index or a count it keeps): the total of `migrate`'s progress line. Nil when counting
    /// would cost a read of the store (the default). Called after `prepareForReading()`.
    func itemCount() throws -> Int64?
}

extension ReadableSink {
    public var missingStore: String? { nil }

    public func itemCount() throws -> Int64? { nil }

    public func prepareForReading() throws {
        _ = try prepare()
    }

    /// `prepareForReading()`, closing the sink when it throws (as `prepareOrClose()`).
    public func prepareForReadingOrClose() throws {
        do {
            try prepareForReading()
        } catch {
            close()
            throw error
        }
    }
}
