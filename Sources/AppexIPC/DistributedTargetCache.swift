import Distributed
import Synchronization

/// Runs distributed targets as the runtime's `executeDistributedTarget` does, keeping what it
/// works out from a target's mangled name for the next call of the same target with the same
/// generic substitutions.
///
/// `executeDistributedTarget` demangles the target's identifier at every call — its generic
/// environment, the witness tables its substitutions need, its parameter and return types —
/// which cost about 3 µs of a 31 µs actor call on the benchmark machine (issue 28). The answers
/// depend only on the identifier and the substitution types, so they are kept here, per pair,
/// and the call itself goes to the runtime's entry point under `executeDistributedTarget`
/// (`swift_distributed_execute_target`).
///
/// That entry point is not public API: the cache is used only with the compiler it was checked
/// against (Swift 6.3, whose runtime ships with it on Linux, where Swift has no stable ABI);
/// with any other, ``execute(on:target:decoder:handler:system:)`` calls
/// `executeDistributedTarget`. The actor-system tests run every kind of target through it.
/// Only lookups that succeed are kept, so a peer that sends names cannot grow the cache: each
/// entry is a real target of this executable with substitutions this side registered.
final class DistributedTargetCache: Sendable {
    private struct Key: Hashable {
        let target: String
        let substitutions: [ObjectIdentifier]
    }

    #if compiler(>=6.3) && compiler(<6.4) && os(Linux)
    /// What the runtime worked out for one target and substitutions: read-only once made, kept
    /// as long as the process runs.
    private final class Entry: @unchecked Sendable {
        /// The target's identifier in UTF-8 (`nameLength` bytes; at least one allocated).
        let name: UnsafeMutablePointer<UInt8>
        let nameLength: Int
        let substitutions: UnsafeMutablePointer<Any.Type>?
        let witnessTables: UnsafeRawPointer?
        let witnessTableCount: Int
        /// The parameters' types (at least one slot allocated).
        let argumentTypes: UnsafeMutablePointer<Any.Type>
        let returnType: Any.Type
        /// The size and alignment of a buffer that holds a `returnType` (as
        /// `UnsafeMutablePointer<R>.allocate(capacity: 1)` would make).
        let resultSize: Int
        let resultAlignment: Int

        init(target: String, substitutions types: [Any.Type]) throws(AppexError) {
            let utf8 = Array(target.utf8)
            let name = UnsafeMutablePointer<UInt8>.allocate(capacity: max(utf8.count, 1))
            name.initialize(from: utf8, count: utf8.count)
            let length = UInt(utf8.count)
            var substitutions: UnsafeMutablePointer<Any.Type>?
            var witnessTables: UnsafeRawPointer?
            var witnessTableCount = 0
            var argumentTypes: UnsafeMutablePointer<Any.Type>?
            var made = false
            defer {
                if !made {
                    name.deallocate()
                    substitutions?.deallocate()
                    witnessTables?.deallocate()
                    argumentTypes?.deallocate()
                }
            }
            let environment = _getGenericEnvironmentOfDistributedTarget(name, length)
            if let environment {
                guard !types.isEmpty else {
                    throw AppexError(
                        .refused,
                        "the generic distributed target \(target) was called without generic substitutions"
                    )
                }
                let buffer = UnsafeMutablePointer<Any.Type>.allocate(capacity: types.count)
                buffer.initialize(from: types, count: types.count)
                substitutions = buffer
                (witnessTables, witnessTableCount) = _getWitnessTablesFor(
                    environment: environment,
                    genericArguments: buffer
                )
                guard witnessTableCount >= 0 else {
                    throw AppexError(
                        .refused,
                        "the generic substitutions \(types) do not satisfy the requirements of the distributed target \(target)"
                    )
                }
            }
            let count = __getParameterCount(name, length)
            guard count >= 0 else {
                throw AppexError(.refused, "no distributed target is named \(target) here (runtime error \(count))")
            }
            let types = UnsafeMutablePointer<Any.Type>.allocate(capacity: max(Int(count), 1))
            argumentTypes = types
            let decoded = __getParameterTypeInfo(
                name,
                length,
                environment,
                substitutions,
                UnsafeMutableRawPointer(types)._rawValue,
                Int(count)
            )
            guard decoded == count, let returnType = __getReturnTypeInfo(name, length, environment, substitutions)
            else {
                throw AppexError(
                    .refused,
                    "cannot read the parameter and return types of the distributed target \(target)"
                )
            }
            self.name = name
            self.nameLength = utf8.count
            self.substitutions = substitutions
            self.witnessTables = witnessTables
            self.witnessTableCount = witnessTableCount
            self.argumentTypes = types
            self.returnType = returnType
            (resultSize, resultAlignment) = bufferLayout(of: returnType)
            made = true
        }

        deinit {
            name.deallocate()
            substitutions?.deallocate()
            witnessTables?.deallocate()
            argumentTypes.deallocate()
        }
    }

    private let entries = Mutex<[Key: Entry]>([:])
    #endif

    /// Runs `target` on `actor` with the arguments `decoder` holds, giving the outcome to
    /// `handler`, as `system.executeDistributedTarget(on:target:invocationDecoder:handler:)`.
    func execute<Act: DistributedActor>(
        on actor: Act,
        target: RemoteCallTarget,
        decoder: inout IPCInvocationDecoder,
        handler: IPCResultHandler,
        system: IPCActorSystem
    ) async throws {
        #if compiler(>=6.3) && compiler(<6.4) && os(Linux)
        let substitutions = try decoder.decodeGenericSubstitutions()
        let key = Key(target: target.identifier, substitutions: substitutions.map { ObjectIdentifier($0) })
        let entry: Entry
        if let known = entries.withLock({ $0[key] }) {
            entry = known
        } else {
            let made = try Entry(target: target.identifier, substitutions: substitutions)
            entry = entries.withLock { entries in
                if let raced = entries[key] { return raced }
                entries[key] = made
                return made
            }
        }
        let result = UnsafeMutableRawPointer.allocate(byteCount: entry.resultSize, alignment: entry.resultAlignment)
        defer { result.deallocate() }
        do {
            try await executeTarget(
                on: actor,
                entry.name,
                UInt(entry.nameLength),
                argumentDecoder: &decoder,
                argumentTypes: UnsafeMutableRawPointer(entry.argumentTypes),
                resultBuffer: result,
                substitutions: UnsafeRawPointer(entry.substitutions),
                witnessTables: entry.witnessTables,
                numWitnessTables: UInt(entry.witnessTableCount)
            )
            if entry.returnType == Void.self {
                try await handler.onReturnVoid()
            } else {
                try await system.invokeHandlerOnReturn(
                    handler: handler,
                    resultBuffer: UnsafeRawPointer(result),
                    metatype: entry.returnType
                )
            }
        } catch {
            try await handler.onThrow(error: error)
        }
        #else
        try await system.executeDistributedTarget(
            on: actor,
            target: target,
            invocationDecoder: &decoder,
            handler: handler
        )
        #endif
    }
}

#if compiler(>=6.3) && compiler(<6.4) && os(Linux)
/// The size and alignment of a buffer for one `R`.
private func bufferLayout<R>(of _: R.Type) -> (size: Int, alignment: Int) {
    (max(MemoryLayout<R>.stride, 1), MemoryLayout<R>.alignment)
}

/// The runtime's entry point under `executeDistributedTarget` (Distributed's
/// `_executeDistributedTarget`, whose `Builtin.RawPointer` parameters are raw pointers here).
@_silgen_name("swift_distributed_execute_target")
private func executeTarget<D: DistributedTargetInvocationDecoder>(
    on actor: AnyObject,
    _ targetName: UnsafePointer<UInt8>,
    _ targetNameLength: UInt,
    argumentDecoder: inout D,
    argumentTypes: UnsafeMutableRawPointer,
    resultBuffer: UnsafeMutableRawPointer,
    substitutions: UnsafeRawPointer?,
    witnessTables: UnsafeRawPointer?,
    numWitnessTables: UInt
) async throws
#endif
