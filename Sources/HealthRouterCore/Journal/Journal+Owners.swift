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
    ///
    /// With `forwardingUser` (items another healthrouter forwards): an id owned by that user, the
    /// forwarding token's own, passes to the user the sample carries. It owns such ids only by
    /// having stamped forwarded samples that came without a user (an import's, upstream); the
    /// healthrouter that forwards gave them to a user since. Other users' ids stay theirs.
    func mayWrite(_ sample: Sample) throws -> Bool {
        guard enforcesOwners, let user = sample.userId else { return true }
        var owner = try owner(of: sample.id)
        if owner == nil {
            var inferred = user
            if let sequence = try storedSequence(of: sample.id, start: Self.keySecond(sample)),
               let storedUser = try storedSample(at: sequence)?.userId {
                inferred = storedUser
            }
            SampleIdKey.bind(insertOwner, 1, sample.id)
            insertOwner.bind(2, inferred)
            try insertOwner.run()
            owner = inferred
        }
        if owner == user { return true }
        guard let forwardingUser, owner == forwardingUser else { return false }
        SampleIdKey.bind(upsertOwner, 1, sample.id)
        upsertOwner.bind(2, user)
        try upsertOwner.run()
        return true
    }

    /// Whether a tombstone of `user` may delete `id`: it has no owner, or `user` owns it, or
    /// (forwarded) `forwardingUser` does (see `mayWrite`: the deletion another healthrouter took
    /// of a sample that came here without a user). A tombstone without a user (a replay, a
    /// migration) may delete any id, as may any tombstone without `enforcesOwners`. Asked for each
    /// of the tombstone's ids and each alias they bring.
    ///
    /// A deletion forwarded without a user comes here as the forwarding token's user's (stamped, as
    /// a sample without one): it deletes that user's ids, not another user's, although the
    /// forwarding healthrouter deleted the id whoever's it was. Which of another user's ids came
    /// here forwarded and which that user pushed here (theirs alone) is not recorded, so both stay;
    /// the push's reply lists the deletion as skipped, and the forwarding sink parks it.
    func mayDelete(_ id: String, for user: String?) throws -> Bool {
        guard enforcesOwners, let user, let owner = try owner(of: id) else { return true }
        return owner == user || owner == forwardingUser
    }

    /// The user who owns `id`, if any.
    private func owner(of id: String) throws -> String? {
        SampleIdKey.bind(lookupOwner, 1, id)
        defer { lookupOwner.reset() }
        return try lookupOwner.step() ? lookupOwner.string(0) : nil
    }
}
