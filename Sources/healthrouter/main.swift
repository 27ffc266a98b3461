import Foundation
import HealthRouterCLI

exit(HealthRouterCommand.main(Array(CommandLine.arguments.dropFirst())))
