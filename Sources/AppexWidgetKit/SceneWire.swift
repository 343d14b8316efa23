internal import AppexCoding

/// The messages of a scene, on the connection the extension shares with its own messages: each
/// starts with ``magic``, which no session message (JSON) and no compact-coded call begins with.
package enum SceneRequest: Sendable, Hashable {
    /// Opens the scene `sceneID` with the host's `parameters`; the reply is its number and its
    /// first tree.
    case open(sceneID: String, parameters: [String: String])
    /// An event of control `control` of the open scene `scene`; the reply is its new tree.
    case event(scene: UInt64, control: Int, SceneEvent)
    /// Closes the open scene `scene`.
    case close(scene: UInt64)

    /// What every scene message starts with: NUL, "SCN", version 1.
    package static let magic: [UInt8] = [0, 0x53, 0x43, 0x4E, 1]

    /// Whether `bytes` are a scene message.
    package static func isScene(_ bytes: [UInt8]) -> Bool { bytes.starts(with: magic) }

    package func encoded() -> [UInt8] {
        var writer = WireWriter(prefix: Self.magic, capacity: 64)
        switch self {
        case .open(let sceneID, let parameters):
            writer.write(byte: 0)
            writer.write(sceneID)
            writer.write(count: parameters.count)
            for (key, value) in parameters.sorted(by: { $0.key < $1.key }) {
                writer.write(key)
                writer.write(value)
            }
        case .event(let scene, let control, let event):
            writer.write(byte: 1)
            writer.write(varint: scene)
            writer.write(Int64(control))
            switch event {
            case .tap: writer.write(byte: 0)
            case .toggle: writer.write(byte: 1)
            case .text(let text):
                writer.write(byte: 2)
                writer.write(text)
            case .choose(let option):
                writer.write(byte: 3)
                writer.write(Int64(option))
            }
        case .close(let scene):
            writer.write(byte: 2)
            writer.write(varint: scene)
        }
        return writer.bytes
    }

    /// Reads a scene request.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `protocolViolation`, saying what was wrong.
    package init(decoding bytes: [UInt8]) throws(AppexError) {
        do throws(WireFormatError) { self = try Self(reading: bytes) } catch {
            throw AppexError(.protocolViolation, "not a scene request: \(error)")
        }
    }

    private init(reading bytes: [UInt8]) throws(WireFormatError) {
        var reader = WireReader(bytes, from: Self.magic.count)
        switch try reader.byte("a scene request") {
        case 0:
            let sceneID = try reader.string("a scene's identifier")
            let count = try reader.count("the number of a scene's parameters")
            var parameters: [String: String] = [:]
            for _ in 0..<count {
                let key = try reader.string("a parameter's name")
                parameters[key] = try reader.string("a parameter's value")
            }
            self = .open(sceneID: sceneID, parameters: parameters)
        case 1:
            let scene = try reader.varint("a scene's number")
            let control = Int(try reader.int64("a control's number"))
            let event: SceneEvent
            switch try reader.byte("an event") {
            case 0: event = .tap
            case 1: event = .toggle
            case 2: event = .text(try reader.string("a text"))
            case 3: event = .choose(Int(try reader.int64("an option")))
            case let other: throw reader.error("\(other) is not a kind of event")
            }
            self = .event(scene: scene, control: control, event)
        case 2: self = .close(scene: try reader.varint("a scene's number"))
        case let other: throw reader.error("\(other) is not a kind of scene request")
        }
        try reader.expectEnd(of: "the scene request")
    }
}

/// What a person did to a scene's control.
package enum SceneEvent: Sendable, Hashable {
    /// Tapped a button.
    case tap
    /// Flipped a switch.
    case toggle
    /// Typed into a text field: its new text.
    case text(String)
    /// Chose option `index` of a picker.
    case choose(Int)
}

/// A scene's answer: its number and its tree (encoded as ``ViewTree/encoded()``), or the
/// extension's refusal with its code, which the host throws as it came.
package enum SceneReply: Sendable, Hashable {
    case tree(scene: UInt64, tree: [UInt8])
    case refused(code: String, message: String)

    package func encoded() -> [UInt8] {
        var writer = WireWriter(capacity: 64)
        switch self {
        case .tree(let scene, let tree):
            writer.write(byte: 0)
            writer.write(varint: scene)
            writer.write(bytes: tree)
        case .refused(let code, let message):
            writer.write(byte: 1)
            writer.write(code)
            writer.write(message)
        }
        return writer.bytes
    }

    package init(decoding bytes: [UInt8]) throws(AppexError) {
        do throws(WireFormatError) {
            var reader = WireReader(bytes)
            switch try reader.byte("a scene reply") {
            case 0: self = .tree(scene: try reader.varint("a scene's number"), tree: try reader.bytes("a scene's tree"))
            case 1: self = .refused(code: try reader.string("a code"), message: try reader.string("a message"))
            case let other: throw reader.error("\(other) is not a kind of scene reply")
            }
            try reader.expectEnd(of: "the scene reply")
        } catch {
            throw AppexError(.protocolViolation, "not a scene reply: \(error)")
        }
    }
}
