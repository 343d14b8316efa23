internal import AppexCoding

// The widget host's messages in the binary form (see `ViewNode+Wire.swift` for why by hand):
// each a case byte, then its fields in order. The same forms, behind a marker byte, are how the
// widget host stores timelines, entries and descriptors (``storedBytes``).

extension WidgetRequest {
    /// The request's bytes.
    package func encoded() -> [UInt8] {
        var writer = WireWriter(capacity: 64)
        switch self {
        case .describe:
            writer.write(byte: 0)
        case .placeholder(let kind, let family):
            writer.write(byte: 1)
            writer.write(kind)
            family.write(to: &writer)
        case .snapshot(let kind, let family, let isPreview):
            writer.write(byte: 2)
            writer.write(kind)
            family.write(to: &writer)
            writer.write(isPreview)
        case .timeline(let kind, let family):
            writer.write(byte: 3)
            writer.write(kind)
            family.write(to: &writer)
        case .performIntent(let kind, let control):
            writer.write(byte: 4)
            writer.write(kind)
            writer.write(byte: control.kind.rawValue)
            writer.write(control.type)
            writer.write(bytes: control.arguments)
        case .configured(let configuration, let request):
            writer.write(byte: 5)
            writer.write(bytes: configuration)
            return writer.bytes + request.encoded()
        }
        return writer.bytes
    }

    /// Reads a request.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `protocolViolation`, saying what was wrong and where.
    package init(decoding bytes: [UInt8]) throws(AppexError) {
        do throws(WireFormatError) { self = try Self(reading: bytes) } catch {
            throw AppexError(.protocolViolation, "not a widget request: \(error)")
        }
    }

    private init(reading bytes: [UInt8]) throws(WireFormatError) {
        var reader = WireReader(bytes)
        switch try reader.byte("a request") {
        case 0: self = .describe
        case 1: self = .placeholder(kind: try reader.string("a kind"), family: try WidgetFamily(reading: &reader))
        case 2:
            self = .snapshot(
                kind: try reader.string("a kind"),
                family: try WidgetFamily(reading: &reader),
                isPreview: try reader.bool("whether it is a preview")
            )
        case 3: self = .timeline(kind: try reader.string("a kind"), family: try WidgetFamily(reading: &reader))
        case 4:
            let kind = try reader.string("a kind")
            let controlByte = try reader.byte("a control's kind")
            guard let controlKind = IntentControl.Kind(rawValue: controlByte) else {
                throw reader.error("\(controlByte) is not a kind of control")
            }
            let control = IntentControl(
                kind: controlKind,
                type: try reader.string("an intent's type"),
                arguments: try reader.bytes("an intent's parameters")
            )
            self = .performIntent(kind: kind, control: control)
        case 5:
            let configuration = try reader.bytes("a widget's configuration")
            // Checked before it is read, so that configurations cannot nest (no recursion on input).
            guard reader.position < bytes.count, (1...3).contains(bytes[reader.position]) else {
                throw reader.error("a configuration goes with a placeholder, snapshot or timeline request")
            }
            self = .configured(
                configuration: configuration,
                request: try Self(reading: Array(bytes[reader.position...]))
            )
            return
        case let other: throw reader.error("\(other) is not a kind of request")
        }
        try reader.expectEnd(of: "the request")
    }
}

extension WidgetReply {
    /// The reply's bytes.
    package func encoded() -> [UInt8] {
        var writer = WireWriter(capacity: 1024)
        switch self {
        case .widgets(let descriptors):
            writer.write(byte: 0)
            WidgetDescriptor.write(descriptors, to: &writer)
        case .entry(let entry):
            writer.write(byte: 1)
            entry.write(to: &writer)
        case .timeline(let timeline):
            writer.write(byte: 2)
            timeline.write(to: &writer)
        case .performed:
            writer.write(byte: 3)
        }
        return writer.bytes
    }

    /// Reads a reply.
    ///
    /// - Throws: ``/AppexVocabulary/AppexError`` `protocolViolation`, saying what was wrong and where.
    package init(decoding bytes: [UInt8]) throws(AppexError) {
        do throws(WireFormatError) { self = try Self(reading: bytes) } catch {
            throw AppexError(.protocolViolation, "not a widget reply: \(error)")
        }
    }

    private init(reading bytes: [UInt8]) throws(WireFormatError) {
        var reader = WireReader(bytes)
        switch try reader.byte("a reply") {
        case 0: self = .widgets(try WidgetDescriptor.read(&reader))
        case 1: self = .entry(try EncodedEntry(reading: &reader))
        case 2: self = .timeline(try EncodedTimeline(reading: &reader))
        case 3: self = .performed
        case let other: throw reader.error("\(other) is not a kind of reply")
        }
        try reader.expectEnd(of: "the reply")
    }
}

extension WidgetFamily {
    func write(to writer: inout WireWriter) {
        writer.write(rawValue)
    }

    init(reading reader: inout WireReader) throws(WireFormatError) {
        let name = try reader.string("a widget family")
        guard let family = WidgetFamily(rawValue: name) else { throw reader.error("\(name) is not a widget family") }
        self = family
    }
}

extension WidgetDescriptor {
    static func write(_ descriptors: [WidgetDescriptor], to writer: inout WireWriter) {
        writer.write(count: descriptors.count)
        for descriptor in descriptors {
            writer.write(descriptor.kind)
            writer.write(descriptor.displayName)
            writer.write(descriptor.description)
            writer.write(count: descriptor.supportedFamilies.count)
            for family in descriptor.supportedFamilies { family.write(to: &writer) }
        }
        // The configurable widgets' settings, after the list (a reader of the list alone, as
        // before widgets were configurable, reads all a static widget has): for each widget, a
        // flag and, when configurable, its parameters and presets as JSON.
        guard descriptors.contains(where: \.isConfigurable) else { return }
        for descriptor in descriptors {
            writer.write(descriptor.isConfigurable)
            guard descriptor.isConfigurable else { continue }
            writer.write(bytes: Self.json(descriptor.parameters))
            writer.write(bytes: Self.json(descriptor.recommendations))
        }
    }

    private static func json(_ value: some Encodable) -> [UInt8] {
        (try? JSONEncoder().encode(value)).map { Array($0) } ?? Array("[]".utf8)
    }

    private static func fromJSON<Value: Decodable>(
        _ type: Value.Type,
        _ reader: inout WireReader,
        _ what: String
    ) throws(WireFormatError) -> Value {
        let bytes = try reader.bytes(what)
        do { return try JSONDecoder().decode(Value.self, from: Data(bytes)) } catch {
            throw reader.error("\(what) is not valid JSON: \(error)")
        }
    }

    static func read(_ reader: inout WireReader) throws(WireFormatError) -> [WidgetDescriptor] {
        let count = try reader.count("the number of widgets", minimumSize: 4)
        var descriptors: [WidgetDescriptor] = []
        descriptors.reserveCapacity(count)
        for _ in 0..<count {
            let kind = try reader.string("a widget's kind")
            let displayName = try reader.string("a widget's name")
            let description = try reader.string("a widget's description")
            let families = try reader.count("the number of families")
            var supported: [WidgetFamily] = []
            for _ in 0..<families { supported.append(try WidgetFamily(reading: &reader)) }
            descriptors.append(
                WidgetDescriptor(
                    kind: kind,
                    displayName: displayName,
                    description: description,
                    supportedFamilies: supported
                )
            )
        }
        if !reader.isAtEnd {
            for index in descriptors.indices {
                guard try reader.bool("whether a widget is configurable") else { continue }
                descriptors[index].isConfigurable = true
                descriptors[index].parameters = try fromJSON([WidgetParameter].self, &reader, "a widget's parameters")
                descriptors[index].recommendations = try fromJSON(
                    [WidgetRecommendation].self,
                    &reader,
                    "a widget's presets"
                )
            }
        }
        return descriptors
    }
}

extension EncodedEntry {
    func write(to writer: inout WireWriter) {
        writer.write(date)
        writer.write(relevance != nil)
        if let relevance {
            writer.write(Double(relevance.score))
            writer.write(relevance.duration)
        }
        writer.write(bytes: tree)
    }

    init(reading reader: inout WireReader) throws(WireFormatError) {
        let date = try reader.double("an entry's date")
        var relevance: TimelineEntryRelevance?
        if try reader.bool("whether an entry has a relevance") {
            relevance = TimelineEntryRelevance(
                score: Float(try reader.double("a relevance score")),
                duration: try reader.double("a relevance's duration")
            )
        }
        self.init(date: date, relevance: relevance, tree: try reader.bytes("an entry's view tree"))
    }
}

extension EncodedTimeline {
    func write(to writer: inout WireWriter) {
        writer.write(count: entries.count)
        for entry in entries { entry.write(to: &writer) }
        switch policy {
        case .atEnd: writer.write(byte: 0)
        case .after(let seconds):
            writer.write(byte: 1)
            writer.write(seconds)
        case .never: writer.write(byte: 2)
        }
    }

    init(reading reader: inout WireReader) throws(WireFormatError) {
        // An entry is at least 10 bytes: its date, the relevance flag and an empty tree's count.
        let count = try reader.count("the number of entries", minimumSize: 10)
        var entries: [EncodedEntry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count { entries.append(try EncodedEntry(reading: &reader)) }
        let policy: EncodedPolicy
        switch try reader.byte("a reload policy") {
        case 0: policy = .atEnd
        case 1: policy = .after(try reader.double("a reload date"))
        case 2: policy = .never
        case let other: throw reader.error("\(other) is not a reload policy")
        }
        self.init(entries: entries, policy: policy)
    }
}

// MARK: - Stored forms

/// The first byte of a stored form: the compact coder's forms (what earlier builds stored) start
/// with a tag of at most 0x0A, so either is recognised.
private let storedMarker: UInt8 = 0xF2

/// A value with a binary form, stored by the widget host after the marker byte.
protocol WireStored: Decodable {
    func write(to writer: inout WireWriter)
    init(reading reader: inout WireReader) throws(WireFormatError)
}

extension WireStored {
    /// The marker byte, then the binary form.
    var markedBytes: [UInt8] {
        var writer = WireWriter(prefix: [storedMarker], capacity: 512)
        write(to: &writer)
        return writer.bytes
    }

    /// A stored value, in this form or the compact coder's.
    static func fromStored(_ bytes: [UInt8]) -> Self? {
        storedValue(bytes, read: { (reader) throws(WireFormatError) in try Self(reading: &reader) })
    }
}

extension EncodedTimeline: WireStored {
    /// The form the widget host stores.
    package var storedBytes: [UInt8] { markedBytes }

    /// A stored timeline, in this form or the compact coder's.
    package init?(stored bytes: [UInt8]) {
        guard let timeline = Self.fromStored(bytes) else { return nil }
        self = timeline
    }
}

extension EncodedEntry: WireStored {
    /// The form the widget host stores.
    package var storedBytes: [UInt8] { markedBytes }

    /// A stored entry, in this form or the compact coder's.
    package init?(stored bytes: [UInt8]) {
        guard let entry = Self.fromStored(bytes) else { return nil }
        self = entry
    }
}

extension WidgetDescriptor {
    /// The form the widget host stores a list of descriptors in.
    package static func storedBytes(_ descriptors: [WidgetDescriptor]) -> [UInt8] {
        var writer = WireWriter(prefix: [storedMarker], capacity: 256)
        write(descriptors, to: &writer)
        return writer.bytes
    }

    /// Stored descriptors, in this form or the compact coder's.
    package static func stored(_ bytes: [UInt8]) -> [WidgetDescriptor]? {
        storedValue(bytes, read: { (reader) throws(WireFormatError) in try WidgetDescriptor.read(&reader) })
    }
}

/// Reads a stored value: this build's form after the marker, else the compact coder's.
private func storedValue<Value: Decodable>(
    _ bytes: [UInt8],
    read: (inout WireReader) throws(WireFormatError) -> Value
) -> Value? {
    guard bytes.first == storedMarker else { return try? CompactDecoder().decode(Value.self, from: bytes) }
    var reader = WireReader(bytes, from: 1)
    guard let value = try? read(&reader), reader.isAtEnd else { return nil }
    return value
}
