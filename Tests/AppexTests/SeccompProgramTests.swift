#if os(Linux)
import AppexSystem
import AppexTestTiers
import Glibc
import Testing

/// The calls the tests name, by number (the kernel's ABI: asm/unistd_64.h, asm-generic/unistd.h;
/// Swift does not import the C library's SYS_ names).
enum Call {
    #if arch(x86_64)
    static let read: Int32 = 0
    static let write: Int32 = 1
    static let mmap: Int32 = 9
    static let openat: Int32 = 257
    static let futex: Int32 = 202
    static let epoll_pwait: Int32 = 281
    static let recvmsg: Int32 = 47
    static let exit_group: Int32 = 231
    static let personality: Int32 = 135
    static let setuid: Int32 = 105
    static let mknodat: Int32 = 259
    static let settimeofday: Int32 = 164
    static let msgget: Int32 = 68
    static let ptrace: Int32 = 101
    static let mount: Int32 = 165
    static let unshare: Int32 = 272
    static let setns: Int32 = 308
    static let bpf: Int32 = 321
    static let keyctl: Int32 = 250
    static let io_uring_setup: Int32 = 425
    static let kexec_load: Int32 = 246
    static let clone3: Int32 = 435
    static let clone: Int32 = 56
    static let socket: Int32 = 41
    static let socketpair: Int32 = 53
    #elseif arch(arm64)
    static let read: Int32 = 63
    static let write: Int32 = 64
    static let mmap: Int32 = 222
    static let openat: Int32 = 56
    static let futex: Int32 = 98
    static let epoll_pwait: Int32 = 22
    static let recvmsg: Int32 = 212
    static let exit_group: Int32 = 94
    static let personality: Int32 = 92
    static let setuid: Int32 = 146
    static let mknodat: Int32 = 33
    static let settimeofday: Int32 = 170
    static let msgget: Int32 = 186
    static let ptrace: Int32 = 117
    static let mount: Int32 = 40
    static let unshare: Int32 = 97
    static let setns: Int32 = 268
    static let bpf: Int32 = 280
    static let keyctl: Int32 = 219
    static let io_uring_setup: Int32 = 425
    static let kexec_load: Int32 = 104
    static let clone3: Int32 = 435
    static let clone: Int32 = 220
    static let socket: Int32 = 198
    static let socketpair: Int32 = 199
    #endif
}

/// clone's flags (sched.h, behind _GNU_SOURCE in the C library's headers).
enum CloneFlag {
    static let vm: UInt64 = 0x100
    static let fs: UInt64 = 0x200
    static let files: UInt64 = 0x400
    static let sighand: UInt64 = 0x800
    static let thread: UInt64 = 0x10000
    static let newUser: UInt64 = 0x1000_0000
    static let newPID: UInt64 = 0x2000_0000
    static let newNet: UInt64 = 0x4000_0000
}

/// The seccomp program every sandboxed child installs, run here as the kernel runs it (classic
/// BPF over `seccomp_data`): the verdict of each call, and the search that finds it.
@Suite("seccomp program", .timed)
struct SeccompProgramTests {
    static let allow: UInt32 = 0x7fff_0000
    static func refused(_ error: Int32) -> UInt32 { 0x0005_0000 | UInt32(error) }

    /// What `program` answers a call, and how many instructions it ran; `nil` when the program
    /// runs off its end, jumps outside it or uses an instruction the filter never emits.
    static func run(
        _ program: SeccompProgram,
        call: UInt32,
        arguments: [UInt64] = [],
        architecture: UInt32 = SeccompProgram.architecture
    ) -> (verdict: UInt32, steps: Int)? {
        let code = program.instructions
        var accumulator: UInt32 = 0
        var counter = 0
        var steps = 0
        func word(at offset: UInt32) -> UInt32? {
            switch offset {
            case 0: return call
            case 4: return architecture
            case 16...63 where (offset - 16) % 4 == 0:
                let index = Int(offset - 16) / 8
                let value = index < arguments.count ? arguments[index] : 0
                return offset % 8 == 0 ? UInt32(truncatingIfNeeded: value) : UInt32(truncatingIfNeeded: value >> 32)
            default: return nil
            }
        }
        while counter < code.count {
            let instruction = code[counter]
            steps += 1
            let next = counter + 1
            switch instruction.code {
            case 0x20:  // BPF_LD | BPF_W | BPF_ABS
                guard let value = word(at: instruction.constant) else { return nil }
                accumulator = value
                counter = next
            case 0x05: counter = next + Int(instruction.constant)  // BPF_JMP | BPF_JA
            case 0x15:
                counter =
                    next + Int(accumulator == instruction.constant ? instruction.jumpIfTrue : instruction.jumpIfFalse)
            case 0x35:
                counter =
                    next + Int(accumulator >= instruction.constant ? instruction.jumpIfTrue : instruction.jumpIfFalse)
            case 0x45:
                counter =
                    next
                    + Int(accumulator & instruction.constant != 0 ? instruction.jumpIfTrue : instruction.jumpIfFalse)
            case 0x54:  // BPF_ALU | BPF_AND | BPF_K
                accumulator &= instruction.constant
                counter = next
            case 0x06: return (instruction.constant, steps)  // BPF_RET | BPF_K
            default: return nil
            }
        }
        return nil
    }

    static func verdict(_ program: SeccompProgram, _ call: Int32, _ arguments: UInt64...) -> UInt32? {
        run(program, call: UInt32(call), arguments: arguments)?.verdict
    }

    @Test(
        "the base tier: denied calls and namespace flags refused, clone3 ENOSYS, sockets by family and type, any other call allowed"
    )
    func base() throws {
        let program = try #require(SeccompProgram([]))
        #expect(Self.verdict(program, Call.read) == Self.allow)
        #expect(Self.verdict(program, Call.personality) == Self.allow)
        for call in [
            Call.ptrace, Call.mount, Call.unshare, Call.setns, Call.bpf, Call.keyctl, Call.io_uring_setup,
            Call.kexec_load,
        ] {
            #expect(Self.verdict(program, call) == Self.refused(EPERM), "call \(call)")
        }
        #expect(Self.verdict(program, Call.clone3) == Self.refused(ENOSYS))
        #expect(Self.verdict(program, Call.clone, UInt64(SIGCHLD)) == Self.allow)
        #expect(
            Self.verdict(
                program,
                Call.clone,
                CloneFlag.vm | CloneFlag.fs | CloneFlag.files | CloneFlag.sighand | CloneFlag.thread
            ) == Self.allow
        )
        #expect(Self.verdict(program, Call.clone, CloneFlag.newUser | UInt64(SIGCHLD)) == Self.refused(EPERM))
        #expect(Self.verdict(program, Call.clone, CloneFlag.newNet) == Self.refused(EPERM))
        #expect(Self.verdict(program, Call.socket, UInt64(AF_UNIX), 1) == Self.refused(EPERM))
        #expect(Self.verdict(program, Call.socket, UInt64(AF_NETLINK), 3) == Self.refused(EPERM))
        #expect(Self.verdict(program, Call.socket, UInt64(AF_INET), 1 | 0o2000000) == Self.allow)  // SOCK_STREAM | SOCK_CLOEXEC
        #expect(Self.verdict(program, Call.socket, UInt64(AF_INET6), 2) == Self.allow)  // SOCK_DGRAM
        #expect(Self.verdict(program, Call.socket, UInt64(AF_INET), 3) == Self.refused(EPERM))  // SOCK_RAW
        #expect(Self.verdict(program, Call.socketpair, UInt64(AF_UNIX), 1) == Self.allow)
        #expect(Self.verdict(program, Call.socketpair, UInt64(AF_INET), 1) == Self.refused(EPERM))
        // Numbers past any the filter lists, the x32 ABI, a foreign architecture.
        for call: UInt32 in [1023, 1024, 5000] { #expect(Self.run(program, call: call)?.verdict == Self.allow) }
        #expect(Self.run(program, call: 0x4000_0000 | UInt32(Call.read))?.verdict == Self.refused(EPERM))
        if SeccompProgram.architecture != 0 {
            #expect(
                Self.run(program, call: UInt32(Call.read), architecture: 0x4000_0003)?.verdict == Self.refused(EPERM)
            )
        }
    }

    @Test("without network: internet datagrams refused, or every internet socket")
    func network() throws {
        let datagrams = try #require(SeccompProgram(.noInternetDatagrams))
        #expect(Self.verdict(datagrams, Call.socket, UInt64(AF_INET), 2) == Self.refused(EPERM))
        #expect(Self.verdict(datagrams, Call.socket, UInt64(AF_INET), 1) == Self.allow)
        let none = try #require(SeccompProgram(.noInternet))
        #expect(Self.verdict(none, Call.socket, UInt64(AF_INET), 1) == Self.refused(EPERM))
        #expect(Self.verdict(none, Call.socket, UInt64(AF_INET6), 2) == Self.refused(EPERM))
        #expect(Self.verdict(none, Call.socketpair, UInt64(AF_UNIX), 1) == Self.allow)
    }

    @Test("enhanced security's allowlist: listed calls allowed, any other refused, the base tier's refusals kept")
    func allowlist() throws {
        let program = try #require(SeccompProgram([.allowlist, .noInternet]))
        for call in [
            Call.read, Call.write, Call.openat, Call.mmap, Call.futex, Call.epoll_pwait, Call.recvmsg, Call.exit_group,
        ] {
            #expect(Self.verdict(program, call) == Self.allow, "call \(call)")
        }
        for call in [
            Call.personality, Call.setuid, Call.mknodat, Call.settimeofday, Call.msgget, Call.ptrace, Call.mount,
        ] {
            #expect(Self.verdict(program, call) == Self.refused(EPERM), "call \(call)")
        }
        #expect(Self.verdict(program, Call.clone3) == Self.refused(ENOSYS))
        #expect(Self.verdict(program, Call.clone, UInt64(SIGCHLD)) == Self.allow)
        #expect(Self.verdict(program, Call.clone, CloneFlag.newPID) == Self.refused(EPERM))
        #expect(Self.verdict(program, Call.socket, UInt64(AF_INET), 1) == Self.refused(EPERM))
        for call: UInt32 in [1023, 1024, 5000] {
            #expect(Self.run(program, call: call)?.verdict == Self.refused(EPERM))
        }
    }

    @Test(
        "every call number ends in a verdict within the program, found by a binary search: a few comparisons for any call, where a chain of tests ran one per listed call"
    )
    func search() throws {
        for options: SeccompProgram.Options in [
            [], .noInternetDatagrams, .noInternet, .allowlist, [.allowlist, .noInternet],
        ] {
            let program = try #require(SeccompProgram(options))
            var longest = 0
            for call in UInt32(0)..<1100 {
                for arguments: [UInt64] in [[], [UInt64(AF_INET), 1], [CloneFlag.newUser]] {
                    let outcome = try #require(
                        Self.run(program, call: call, arguments: arguments),
                        "call \(call) ran off the program"
                    )
                    longest = max(longest, outcome.steps)
                }
            }
            // The arch and x32 checks (5), at most 11 comparisons and a leaf for up to 2,048
            // runs, an argument test (12): under 30. The chain it replaced ran up to 558.
            #expect(longest < 30, "options \(options.rawValue): a call ran \(longest) instructions")
        }
    }
}
#endif
