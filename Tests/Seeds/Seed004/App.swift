// The app's own pieces that seed 004's listings use and do not print: its point, and what it
// does with each list (prints it, a line each, for the test; stops after the count in its
// first argument).
import AppexHost
import Foundation
import Synchronization

extension AppExtensionPoint {
    @Definition
    static var myExampleExtensionPoint: AppExtensionPoint {
        Name("MyExampleExtensionPoint")
        UserInterface(false)
        Scope(restriction: .none)
    }
}

private let reported = Atomic<Int>(0)

/// Prints one list of identities ("update com.example.a,com.example.b").
func report(_ label: String, _ identities: [AppExtensionIdentity]) {
    let line = "\(label) \(identities.map(\.bundleIdentifier).sorted().joined(separator: ","))\n"
    FileHandle.standardOutput.write(Data(line.utf8))
    reported.add(1, ordering: .relaxed)
}

/// Waits until as many lists as the first argument says were printed (2 by default).
func runUntilEnough() async {
    let wanted = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 2 : 2
    while reported.load(ordering: .relaxed) < wanted { try? await Task.sleep(for: .milliseconds(20)) }
}
