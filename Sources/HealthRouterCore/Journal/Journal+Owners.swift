extension Journal {
    /// Whether `sample` may be written: no other user's sample holds its id. A producer's own id
    /// (a HealthKit UUID) is the same for every user's store, so without this a user could
    /// replace, or with a tombstone delete, another user's sample by sending its id; every
    /// sink keys rows by id. The first user to bring a producer's id owns it (`sample_owners`);
    /// a sample of another user under that id is refused. Samples without a user (an import
    /// the config runs, a replay) are the owner's own doing and pass, as do fingerprint ids,
    /// which are derived from the reading and so cannot name another's sample by choice.
    ///
    /// Ids journaled before owners were recorded have none until their next sample.
    func mayWrite(_ sample: Sample) throws -> Bool {
        guard let user = sample.userId, !Self.isFingerprintId(sample.id) else { return true }
        if let owner = try owner(of: sample.id) { return owner == user }
        SampleIdKey.bind(insertOwner, 1, sample.id)
        insertOwner.bind(2, user)
        try insertOwner.run()
        return true
    }

    /// Whether a tombstone of `user` may delete `id`: it has no owner, or `user` owns it. A
    /// tombstone without a user (a replay, a migration) may delete any id.
    func mayDelete(_ id: String, for user: String?) throws -> Bool {
        guard let user, let owner = try owner(of: id) else { return true }
        return owner == user
    }

    /// The user who owns the producer's id `id`, if any.
    private func owner(of id: String) throws -> String? {
        SampleIdKey.bind(lookupOwner, 1, id)
        defer { lookupOwner.reset() }
        return try lookupOwner.step() ? lookupOwner.string(0) : nil
    }
}
