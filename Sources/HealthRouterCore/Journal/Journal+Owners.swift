extension Journal {
    /// Whether `sample` may be written: no other user's sample holds its id. A sample's id is
    /// the same in every user's store (a HealthKit UUID, or a fingerprint anyone who knows the
    /// reading can compute), so without this one user's push could replace, or with a tombstone
    /// delete, another user's sample by sending its id; every sink keys rows by id. With
    /// `enforcesOwners` (pushes, which come from several users' tokens), the first user to bring
    /// an id owns it (`sample_owners`), and a sample of another user under that id is refused.
    /// Without it (imports and replays the config runs, which are the owner's own doing), or for
    /// a sample without a user, everything passes and no owner is recorded: the per-record cost
    /// stays off the import's path.
    ///
    /// Ids journaled before owners were recorded have none until a user pushes them again.
    func mayWrite(_ sample: Sample) throws -> Bool {
        guard enforcesOwners, let user = sample.userId else { return true }
        if let owner = try owner(of: sample.id) { return owner == user }
        SampleIdKey.bind(insertOwner, 1, sample.id)
        insertOwner.bind(2, user)
        try insertOwner.run()
        return true
    }

    /// Whether a tombstone of `user` may delete `id`: it has no owner, or `user` owns it. A
    /// tombstone without a user (a replay, a migration) may delete any id, as may any tombstone
    /// without `enforcesOwners`. Asked for each of the tombstone's ids and each alias they bring.
    func mayDelete(_ id: String, for user: String?) throws -> Bool {
        guard enforcesOwners, let user, let owner = try owner(of: id) else { return true }
        return owner == user
    }

    /// The user who owns `id`, if any.
    private func owner(of id: String) throws -> String? {
        SampleIdKey.bind(lookupOwner, 1, id)
        defer { lookupOwner.reset() }
        return try lookupOwner.step() ? lookupOwner.string(0) : nil
    }
}
