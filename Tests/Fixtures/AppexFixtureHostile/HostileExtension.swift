import AppexExtension
import AppexFixtureInterfaces
import AppexStore
import CAppexFixtureHostile
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A hostile extension (the sandbox's tests): each command tries one thing its sandbox must
/// refuse, and answers `refused: <errno>` or `allowed: <what it got>`, so the test sees the
/// refusal itself. It never crashes on a refusal: the host and the other extensions go on.
@main
struct HostileExtension: AppExtension {
    static let boundAppExtensionPoint = ExtensionPointIdentifier(host: "com.example.hostapp", name: "HostAppFeature")

    var configuration: some AppExtensionConfiguration {
        ConnectionHandler { (request: EchoRequest) -> EchoReply in
            if request.command == "unregistered" {
                return EchoReply(text: await Self.sendUnregisteredType(), pid: getpid())
            }
            return EchoReply(text: Self.attempt(request.command, request.text), pid: getpid())
        }
    }

    /// A type the host never registered (nor has: it lives in this executable alone).
    struct Smuggled: Codable, Sendable {
        var payload = "from the hostile extension"
    }

    /// Calls the host's inspector with a value of a type the host did not register, then with a
    /// String: the first is refused by name, the second answered.
    static func sendUnregisteredType() async -> String {
        do {
            let inspector = try FixtureInspector.resolve(id: .exportedObject, using: AppExtensionContext.actorSystem)
            var outcome: String
            do {
                outcome = "allowed: \(try await inspector.describe(Smuggled()))"
            } catch {
                outcome = "refused: \(error)"
            }
            let after = (try? await inspector.describe("still served")) ?? "no answer"
            return outcome + " | then: " + after
        } catch {
            return "cannot resolve the host's inspector: \(error)"
        }
    }

    static func refused(_ call: String) -> String {
        let code = errno
        return "refused: \(call): \(String(cString: strerror(code))) (errno \(code))"
    }

    static func attempt(_ command: String, _ argument: String) -> String {
        switch command {
        case "list":  // list a directory
            guard let directory = opendir(argument) else { return refused("opendir") }
            var names: [String] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(directory)
            return "allowed: \(names.sorted())"
        case "read":  // read a file
            let fd = open(argument, O_RDONLY)
            guard fd >= 0 else { return refused("open") }
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(fd, &buffer, buffer.count)
            guard count >= 0 else { return refused("read") }
            return "allowed: read \(count) bytes"
        case "write":  // open a file for writing
            let fd = open(argument, O_RDWR)
            guard fd >= 0 else { return refused("open(O_RDWR)") }
            close(fd)
            return "allowed: opened for writing"
        case "create":  // create a file
            let fd = open(argument, O_RDWR | O_CREAT, 0o600)
            guard fd >= 0 else { return refused("open(O_CREAT)") }
            close(fd)
            return "allowed: created"
        case "ptrace":
            guard let pid = Int32(argument) else { return "bad pid" }
            guard hostile_ptrace_attach(pid) == 0 else { return refused("ptrace(PTRACE_ATTACH)") }
            return "allowed: attached"
        case "signal":
            guard let pid = Int32(argument) else { return "bad pid" }
            guard kill(pid, 0) == 0 else { return refused("kill") }
            return "allowed: may signal"
        case "connect":
            guard let port = UInt16(argument) else { return "bad port" }
            return connect(port: port)
        case "unix":  // connect to a pathname Unix socket
            guard hostile_unix_connect(argument, 0) == 0 else { return refused("socket(AF_UNIX)+connect") }
            return "allowed: connected to \(argument)"
        case "abstract":  // connect to an abstract Unix socket
            guard hostile_unix_connect(argument, 1) == 0 else { return refused("socket(AF_UNIX)+connect(@)") }
            return "allowed: connected to @\(argument)"
        case "netlink":
            guard hostile_netlink_route() == 0 else { return refused("socket(AF_NETLINK)") }
            return "allowed: a netlink route socket"
        case "socketpair":
            guard hostile_socket_pair() == 0 else { return refused("socketpair(AF_UNIX)") }
            return "allowed: a socket pair"
        case "udp":
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            guard fd >= 0 else { return refused("socket(SOCK_DGRAM)") }
            close(fd)
            return "allowed: a datagram socket"
        case "exec":
            var pid: pid_t = 0
            let words: [String] = [argument, "-c", "true"]
            let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
            defer { arguments.forEach { free($0) } }
            let result = posix_spawn(&pid, argument, nil, nil, arguments, environ)
            guard result == 0 else {
                errno = result
                return refused("posix_spawn(\(argument))")
            }
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            return "allowed: ran \(argument)"
        case "fork":
            return forkUntilRefused(limit: Int(argument) ?? 200)
        case "allocate":
            let bytes = Int(argument) ?? 0
            guard let memory = malloc(bytes) else { return refused("malloc(\(bytes))") }
            memset(memory, 1, bytes)
            free(memory)
            return "allowed: \(bytes) bytes"
        case "spin":  // use CPU time until the argument's seconds of it are spent
            let seconds = Double(argument) ?? 1
            var usage = rusage()
            var spins: UInt64 = 0
            repeat {
                for _ in 0..<1_000_000 { spins &+= 1 }
                getrusage(RUSAGE_SELF.rawValue, &usage)
            } while Double(usage.ru_utime.tv_sec) + Double(usage.ru_stime.tv_sec) < seconds
            return "allowed: spun \(seconds) s (\(spins))"
        case "keychain":
            do {
                let keychain = try SharedKeychain(context: try ProcessContext.current())
                let item = try keychain.item(service: "sandbox", account: "test", accessGroup: argument)
                return "allowed: \(keychain.isBrokered ? "brokered" : "local") \(item?.string ?? "nil")"
            } catch {
                return "refused: \(error)"
            }
        case "unshare":
            guard hostile_unshare_user() == 0 else { return refused("unshare(CLONE_NEWUSER)") }
            return "allowed: a new user namespace"
        case "personality":
            guard hostile_personality_query() == 0 else { return refused("personality") }
            return "allowed: personality"
        case "identity":  // its pid and parent as it sees them, and the processes /proc shows
            let processes =
                (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?
                .filter { Int($0) != nil }.count ?? -1
            return "allowed: pid \(getpid()) ppid \(getppid()) processes \(processes)"
        case "environment":
            return ProcessInfo.processInfo.environment.keys.sorted().joined(separator: ",")
        default:
            return "unknown command \(command)"
        }
    }

    static func connect(port: UInt16) -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return refused("socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else { return refused("connect") }
        return "allowed: connected to 127.0.0.1:\(port)"
    }

    /// Forks children that wait, until the kernel refuses one or `limit` run; then ends them.
    static func forkUntilRefused(limit: Int) -> String {
        var children: [pid_t] = []
        defer {
            for child in children { kill(child, SIGKILL) }
            for child in children { waitpid(child, nil, 0) }
        }
        for _ in 0..<limit {
            let child = hostile_fork_waiting()
            if child < 0 { return refused("fork after \(children.count) children") }
            children.append(child)
        }
        return "allowed: \(children.count) children"
    }
}
