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
    /// An id without an owner that is stored at the sample's start (imported, replayed, or pushed
    /// before owners were recorded) is owned by the user of its stored sample, when it has one.
    /// Such an id stored at another start only is not found (that would take a search of every
    /// start): the first user to push it owns it.
    func mayWrite(_ sample: Sample) throws -> Bool {
        guard enforcesOwners, let user = sample.userId else { return true }
        if takesForwardedOwners {
            SampleIdKey.bind(upsertOwner, 1, sample.id)
            upsertOwner.bind(2, user)
            try upsertOwner.run()
            return true
        }
        if let owner = try owner(of: sample.id) { return owner == user }
        var owner = user
        if let sequence = try storedSequence(of: sample.id, start: Self.keySecond(sample)),
           let storedUser = try storedSample(at: sequence)?.userId {
            owner = storedUser
        }
        SampleIdKey.bind(insertOwner, 1, sample.id)
        insertOwner.bind(2, owner)
        try insertOwner.run()
        return owner == user
    }

    /// Whether a tombstone of `user` may delete `id`: it has no owner, or `user` owns it. A
    /// tombstone without a user (a replay, a migration) may delete any id, as may any tombstone
    /// without `enforcesOwners`, or with `takesForwardedOwners`. Asked for each of the tombstone's
    /// ids and each alias they bring.
    func mayDelete(_ id: String, for user: String?) throws -> Bool {
        guard enforcesOwners, !takesForwardedOwners, let user, let owner = try owner(of: id) else { return true }
        return owner == user
    }

    /// The user who owns `id`, if any.
    private func owner(of id: String) throws -> String? {
        SampleIdKey.bind(lookupOwner, 1, id)
        defer { lookupOwner.reset() }
        return try lookupOwner.step() ? lookupOwner.string(0) : nil
    }
}
