import HealthRouterCore

extension SinkError {
    /// The `unreadable` error of the row `id` of `table` (schema-qualified) that a Postgres sink's
    /// read back cannot turn into a sample (a value edited by hand): `problem` says what is wrong
    /// with it; the advice gives the `DELETE` that removes the row and the backfill that writes it
    /// again, after writing the value back as healthrouter wrote it when `canWriteBack` (a value the
    /// user can restore by hand) and `sink`, the sink's name.
    public static func unreadableRow(table: String, id: String, problem: String, canWriteBack: Bool, sink: String) -> SinkError {
        let quoted = id.replacingOccurrences(of: "'", with: "''")
        let delete = "`DELETE FROM \(table) WHERE id = '\(quoted)'`"
        let advice = canWriteBack ? "Write the value back as healthrouter wrote it, or delete the row (\(delete)) and "
            : "Delete the row (\(delete)) and "
        return .unreadable("the row of \(table) with id '\(id)' holds what healthrouter cannot read back: \(problem): was it "
                           + "edited by hand? " + advice + rewriteAdvice(sink: sink))
    }
}
