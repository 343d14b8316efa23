import CAppexSystem

/// The seccomp program a sandboxed child installs before its exec (built in C, as the child
/// builds it: Sandbox.c's `build_filter`), for what reads it outside a child: the tests.
package struct SeccompProgram: Sendable {
    /// What the filter refuses beyond the base tier's calls and sockets.
    package struct Options: OptionSet, Sendable {
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }

        /// Internet sockets other than streams (Landlock rules TCP).
        package static let noInternetDatagrams = Options(rawValue: CAPPEX_SECCOMP_NO_INET_DATAGRAM)
        /// Every internet socket.
        package static let noInternet = Options(rawValue: CAPPEX_SECCOMP_NO_INET)
        /// Enhanced security: only the calls on the allowlist.
        package static let allowlist = Options(rawValue: CAPPEX_SECCOMP_ALLOWLIST)
    }

    /// One classic BPF instruction (linux/filter.h's `sock_filter`).
    package struct Instruction: Sendable, Hashable {
        package var code: UInt16
        package var jumpIfTrue: UInt8
        package var jumpIfFalse: UInt8
        package var constant: UInt32
    }

    /// The program, in order.
    package let instructions: [Instruction]

    /// The audit architecture the program accepts (`seccomp_data.arch`); 0 where it checks none.
    package static var architecture: UInt32 { cappex_seccomp_architecture() }

    /// The program a child sandboxed with `options` installs; `nil` where there is no seccomp
    /// (not Linux) or it would not fit.
    package init?(_ options: Options) {
        var program = [cappex_bpf_instruction](repeating: cappex_bpf_instruction(), count: 1024)
        let length = Int(cappex_seccomp_program(CAPPEX_SECCOMP_BASE | options.rawValue, &program, Int32(program.count)))
        guard length > 0 else { return nil }
        instructions = program.prefix(length).map {
            Instruction(code: $0.code, jumpIfTrue: $0.jt, jumpIfFalse: $0.jf, constant: $0.k)
        }
    }
}
