extension PostgresConnection {
    /// Whether row-level security limits what this session's role reads of `table` (a qualified,
    /// quoted name): the table has RLS on and the role is not exempt from it (a superuser, a role
    /// with BYPASSRLS, or one with its owner's privileges, unless the table forces RLS on owners).
    /// False when the table does not exist.
    public func rowSecurityLimitsReads(of table: String) throws -> Bool {
        try query("""
            SELECT c.relrowsecurity AND NOT r.rolsuper AND NOT r.rolbypassrls
                   AND (c.relforcerowsecurity OR NOT pg_has_role(current_user, c.relowner, 'USAGE'))
            FROM pg_class c JOIN pg_roles r ON r.rolname = current_user
            WHERE c.oid = to_regclass($1)
            """, [table]).bool(0, 0) == true
    }
}
