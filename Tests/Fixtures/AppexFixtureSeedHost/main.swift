// Seed 004's host, as ExtensionKit's code writes it (imports changed): it defines its point in
// code, monitors it with no host path (the app is the one holding this executable), and prints
// each list of identities the Observation framework delivers, then the state's counts.
// Usage (run from inside its .app): AppexFixtureSeedHost UPDATES — exits after UPDATES lists.
import AppexHost
import Foundation
import Observation

extension AppExtensionPoint {
    @Definition
    static var myExampleExtensionPoint: AppExtensionPoint {
        Name("MyExampleExtensionPoint")
        UserInterface(false)
        Scope(restriction: .none)
    }

    @Definition
    static var MySecureFeature: AppExtensionPoint {
        Name("MySecureFeature")
        UserInterface(false)
        EnhancedSecurity(true)
    }
}

let updates = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1 : 1
do {
    FileHandle.standardOutput.write(Data("point \(AppExtensionPoint.myExampleExtensionPoint)\n".utf8))
    let monitor = try await AppExtensionPoint.Monitor(.myExampleExtensionPoint)
    var seen = 0
    for await identities in Observations({ monitor.identities }) {
        let state = monitor.state
        let line =
            "identities \(identities.map(\.bundleIdentifier).joined(separator: ",")) enabled \(state.identities.count) disabled \(state.disabledCount) unapproved \(state.unapprovedCount)\n"
        FileHandle.standardOutput.write(Data(line.utf8))
        seen += 1
        if seen == updates { break }
    }
} catch {
    FileHandle.standardError.write(Data("AppexFixtureSeedHost: \(error)\n".utf8))
    exit(1)
}
