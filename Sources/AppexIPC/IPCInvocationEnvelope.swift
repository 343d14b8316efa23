import AppexCoding
public import AppexVocabulary

/// A distributed call as it travels in an invocation frame: which actor, which target, the
/// call's generic substitutions (mangled type names) and its arguments (each in the compact
/// coding).
///
/// Written by hand, not with `Codable`: the envelope is read and written at every actor call, and
/// a keyed `Codable` container cost about a microsecond on each side (issue 28). The format:
///
/// | field          | bytes                                                        |
/// |----------------|--------------------------------------------------------------|
/// | actor          | varint byte count, then UTF-8                                |
/// | target         | varint byte count, then UTF-8 (the mangled identifier)       |
/// | generics       | varint count, then each as a varint byte count and UTF-8     |
/// | arguments      | varint count, then each as a varint byte count and the bytes |
///
/// A varint is unsigned LEB128, at most 10 bytes. Nothing may follow the arguments.
@_spi(Wire) public struct IPCInvocationEnvelope: Sendable, Equatable {
    /// The name of the actor called (``IPCActorSystem/ActorID/name``).
    public var actor: String
    /// The target's identifier, as `RemoteCallTarget.identifier`.
    public var target: String
    /// The mangled names of the call's generic substitutions, in order.
    public var generics: [String]
    /// Each argument, in the compact coding.
    public var arguments: [[UInt8]]

    /// An envelope of these fields.
    public init(actor: String, target: String, generics: [String], arguments: [[UInt8]]) {
        self.actor = actor
        self.target = target
        self.generics = generics
        self.arguments = arguments
    }

    /// The envelope's bytes.
    public func encoded() -> [UInt8] {
        var size = actor.utf8.count + target.utf8.count + 4 * 10
        for name in generics { size += name.utf8.count + 10 }
        for argument in arguments { size += argument.count + 10 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        Self.append(actor.utf8, to: &bytes)
        Self.append(target.utf8, to: &bytes)
        CompactVarint.write(UInt64(generics.count), into: &bytes)
        for name in generics { Self.append(name.utf8, to: &bytes) }
        CompactVarint.write(UInt64(arguments.count), into: &bytes)
        for argument in arguments { Self.append(argument, to: &bytes) }
        return bytes
    }

    /// Reads an envelope a peer sent.
    /// - Throws: ``/AppexVocabulary/AppexError`` with code `coding`, saying which field is cut
    ///   short or malformed and at which byte; nothing is read past `bytes`.
    public init(decoding bytes: [UInt8]) throws(AppexError) {
        var reader = Reader(bytes: bytes)
        actor = try reader.string("the actor's name")
        target = try reader.string("the target")
        let genericCount = try reader.count("the generic substitutions")
        var generics: [String] = []
        generics.reserveCapacity(genericCount)
        for index in 0..<genericCount { generics.append(try reader.string("generic substitution \(index + 1)")) }
        self.generics = generics
        let argumentCount = try reader.count("the arguments")
        var arguments: [[UInt8]] = []
        arguments.reserveCapacity(argumentCount)
        for index in 0..<argumentCount { arguments.append(try reader.bytes("argument \(index + 1)")) }
        self.arguments = arguments
        guard reader.offset == bytes.count else {
            throw AppexError(
                .coding,
                "a distributed call's envelope has \(bytes.count - reader.offset) bytes after its last argument (at byte \(reader.offset))"
            )
        }
    }

    private static func append(_ field: some Collection<UInt8>, to bytes: inout [UInt8]) {
        CompactVarint.write(UInt64(field.count), into: &bytes)
        bytes.append(contentsOf: field)
    }

    /// Reads the fields in order, never past the end.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func varint(_ field: String) throws(AppexError) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            let start = offset
            while offset < bytes.count {
                let byte = bytes[offset]
                offset += 1
                if shift == 63, byte > 1 { break }  // more than 64 bits
                value |= UInt64(byte & 0x7f) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
                if shift > 63 { break }
            }
            throw AppexError(
                .coding,
                "a distributed call's envelope is cut short or malformed in the length of \(field) (at byte \(start) of \(bytes.count))"
            )
        }

        /// A count of fields, each at least one byte long: never more than the bytes left.
        mutating func count(_ field: String) throws(AppexError) -> Int {
            let start = offset
            let count = try varint(field)
            guard count <= UInt64(bytes.count - offset) else {
                throw AppexError(
                    .coding,
                    "a distributed call's envelope claims \(count) of \(field) at byte \(start), more than its \(bytes.count - offset) bytes left could hold"
                )
            }
            return Int(count)
        }

        mutating func bytes(_ field: String) throws(AppexError) -> [UInt8] {
            let start = offset
            let length = try varint(field)
            guard length <= UInt64(bytes.count - offset) else {
                throw AppexError(
                    .coding,
                    "a distributed call's envelope is cut short in \(field): \(length) bytes announced at byte \(start), \(bytes.count - offset) left"
                )
            }
            defer { offset += Int(length) }
            return Array(bytes[offset..<offset + Int(length)])
        }

        mutating func string(_ field: String) throws(AppexError) -> String {
            let start = offset
            let raw = try bytes(field)
            guard let text = String(validating: raw, as: UTF8.self) else {
                throw AppexError(.coding, "\(field) in a distributed call's envelope is not UTF-8 (at byte \(start))")
            }
            return text
        }
    }
}
