import HealthRouterCore

/// The `healthrouter` command line: parses the arguments and runs one command.
public enum HealthRouterCommand {
    /// Runs the command line `arguments` (without the program name) and returns the exit code.
    public static func main(_ arguments: [String]) -> Int32 {
        print("healthrouter: nothing yet")
        return 0
    }
}
