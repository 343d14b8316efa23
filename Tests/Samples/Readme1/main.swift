import AppexHost
import Observation

extension AppExtensionPoint {
    @Definition
    static var myExampleExtensionPoint: AppExtensionPoint {
        Name("MyExampleExtensionPoint")
        UserInterface(false)
        Scope(restriction: .none)   // extensions from other vendors too, once the owner approves
        ResourceLimits(memoryBytes: 256 << 20, cpuSeconds: 10)  // over the sandbox's defaults
    }
}

let monitor = try await AppExtensionPoint.Monitor(.myExampleExtensionPoint)
print(monitor.identities)               // enabled, valid, signed extensions
print(monitor.state.unapprovedCount)    // found on APPEX_EXTENSIONS_PATH, waiting for the owner
for await identities in Observations({ monitor.identities }) {  // the monitor is @Observable
    print(identities)                   // installs, removals, tampering, `appex enable` from any process
}