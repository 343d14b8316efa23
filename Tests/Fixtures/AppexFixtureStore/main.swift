// A process that uses an app group's shared defaults, for the multi-process tests.
//
//     AppexFixtureStore increment GROUP KEY COUNT   — COUNT atomic increments of KEY
//     AppexFixtureStore write-loop GROUP KEY        — writes 1, 2, 3, ... to KEY forever,
//                                                     printing each value once it is committed
//
// Acts with the owner's authority; APPEX_HOME says where state lives.
import AppexCore
import AppexStore
import Foundation

@MainActor func run() throws -> Int32 {
    let arguments = CommandLine.arguments
    guard arguments.count >= 4 else {
        FileHandle.standardError.write(Data("usage: AppexFixtureStore increment|write-loop GROUP KEY [COUNT]\n".utf8))
        return 2
    }
    let defaults = try SharedDefaults(group: AppGroup(arguments[2], context: .owner))
    let key = arguments[3]
    switch arguments[1] {
    case "increment":
        let count = arguments.count > 4 ? Int(arguments[4]) ?? 0 : 0
        for _ in 0..<count {
            try defaults.update(key) { old in
                if case .integer(let value) = old { return .integer(value + 1) }
                return .integer(1)
            }
        }
        return 0
    case "write-loop":
        var value = defaults.integer(forKey: key)
        while true {
            value += 1
            try defaults.set(value, forKey: key)
            // Straight to the descriptor: a value printed is a value committed, even under kill -9.
            FileHandle.standardOutput.write(Data("\(value)\n".utf8))
        }
    default:
        return 2
    }
}

do { exit(try run()) } catch {
    FileHandle.standardError.write(Data("AppexFixtureStore: \(error)\n".utf8))
    exit(1)
}
