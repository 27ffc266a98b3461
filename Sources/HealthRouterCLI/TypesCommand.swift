import HealthRouterCore

/// `healthrouter types`: prints the type registry.
enum TypesCommand {
    static let help = """
        usage: healthrouter types [--group NAME] [--config FILE]

        Prints every type healthrouter knows: the HealthKit identifier (as export.xml and
        Postgres stores write it), Pulso's short key, Health Auto Export's names, the
        group routes can select, the kind, the canonical unit values are stored in, and the
        scaling: the units converted into it (a value in km is stored in m, degF in °C, kJ
        in kcal), or ×100 for a percentage, which export.xml writes as a 0–1 fraction (Pulso
        and Health Auto Export send 0–100, stored as sent).
        Types not listed still pass through untouched, in the group `other`. What the export
        reader stores under the export's own names is selected by those names and as its type:
        ActivitySummary (activitySummary), HKGlassesPrescription and HKContactsPrescription
        (visionPrescription), and Me, the profile (no HealthKit type: group `other`). The registry
        is built in: a --config FILE is only read (a misspelt key refused, as by every command), not needed.

        exit codes: 0 done, 64 wrong options or an unknown group, 73 standard output cannot be written
                    (a full disk), 78 the --config FILE is wrong

        examples:
          healthrouter types --group sleep
          healthrouter types | grep -i heart
        """

    /// How values of `type` reach its canonical unit: a percentage is HealthKit's 0–1 fraction in
    /// an export, ×100; other units of the same measure are converted; `-` when nothing is.
    static func scaling(of type: HealthType) -> String {
        guard let unit = type.canonicalUnit else { return "-" }
        if unit == "%" { return "×100 from an export's 0–1" }
        let from = UnitConverter.unitsConverted(to: unit)
        return from.isEmpty ? "-" : "from " + from.joined(separator: ", ")
    }

    static func run(_ words: [String], environment: [String: String]) throws -> ExitCode {
        let arguments = try CommandLineArguments.parse(words, command: "types")
        if arguments.flags.contains("--help") {
            print(help)
            return .success
        }
        try arguments.refusePositional(command: "types")
        // Not used, but a path given and wrong is said, as every command says it.
        // Its sinks' keys too, as status and dump check them (no I/O).
        if arguments.values["--config"] != nil {
            _ = try LoadedConfig.load(arguments, environment: environment, usesSources: false).sinkSpecs()
        }
        var types = TypeRegistry.all
        if let group = arguments.values["--group"] {
            guard TypeRegistry.groups.contains(group) else {
                var message = "no group '\(group)'; groups: \(TypeRegistry.groups.joined(separator: ", "))"
                if let guess = NameSuggester.closest(to: group, among: TypeRegistry.groups) { message = "no group '\(group)' (did you mean '\(guess)'?)" }
                throw UsageError(message, command: "types")
            }
            types = types.filter { $0.group == group }
        }
        var rows: [[String]] = [["group", "identifier", "key", "health auto export", "kind", "unit", "scaling"]]
        for type in types {
            rows.append([type.group, type.identifier, type.key ?? "-", type.haeNames.isEmpty ? "-" : type.haeNames.joined(separator: ","),
                         type.kind.name, type.canonicalUnit ?? "-", Self.scaling(of: type)])
        }
        print(Table.render(rows))
        print("\n\(types.count) types; groups: \(TypeRegistry.groups.joined(separator: ", "))")
        if arguments.values["--group"] == "other" {
            print("the group other is every type this registry does not list (types a newer iOS or an app adds, "
                  + "clinical records of a kind not under clinical, Me, the profile): routes and --types select them by it")
        }
        let stored = types.filter { !$0.storedNames.isEmpty }.map { type in
            "\(type.storedNames.joined(separator: ", ")) (\(type.key ?? type.identifier))"
        } + (arguments.values["--group"] == nil ? ["\(TypeRegistry.profileType) (the profile)"] : [])
        if !stored.isEmpty {
            print("stored by the export reader under the export's names, which routes and --types take too: "
                  + stored.joined(separator: "; "))
        }
        return .success
    }
}
