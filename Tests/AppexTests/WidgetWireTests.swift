import AppexCoding
@_spi(Wire) import AppexIPC
import AppexTestTiers
import AppexWidgetKit
import Foundation
import Testing

/// The hand-written binary forms on the widget's hot path: the view tree (version 2), the widget
/// host's messages and stored forms, and the binary hello of protocol 2. What they read back, what
/// they refuse and how they say so, and what earlier builds wrote that is still read.
@Suite(.timed) struct WidgetWireTests {
    /// A tree with every kind of node and every optional field both set and not.
    static let everyNode: ViewNode = .widgetURL(
        "app://widget",
        .background(
            .color(red: 0.1, green: 0.2, blue: 0.3, opacity: 0.5),
            .stack(
                .vertical,
                alignment: NodeAlignment(horizontal: .leading, vertical: .top),
                spacing: 4,
                children: [
                    .empty,
                    .group([.divider, .spacer(minLength: nil), .spacer(minLength: 8)]),
                    .text([
                        TextRun(content: .verbatim("Grace ≠ \u{1F9E9}")),
                        TextRun(
                            content: .date(1_750_000_000.5, .relative),
                            style: TextStyle(
                                font: FontSpec(name: .custom, size: 13, weight: .bold, italic: true, monospaced: true),
                                weight: .semibold,
                                italic: false,
                                foreground: .hierarchical(2),
                                lineLimit: 3
                            )
                        ),
                    ]),
                    .image(.system("person.crop.circle")),
                    .image(.named("logo")),
                    .label(title: [TextRun(content: .verbatim("Open"))], icon: .system("arrow.up.right")),
                    .label(title: [], icon: nil),
                    .link(destination: "app://contact/1", content: .text([TextRun(content: .verbatim("Ada"))])),
                    .control(
                        IntentControl(kind: .toggleOn, type: "4Main9StarIntentV", arguments: Array(#"{"by":1}"#.utf8)),
                        label: .text([TextRun(content: .verbatim("Starred"))])
                    ),
                    .sceneControl(SceneControl(index: 0, kind: .button), label: .text([])),
                    .sceneControl(SceneControl(index: 1, kind: .toggle(isOn: true)), label: .empty),
                    .sceneControl(SceneControl(index: 2, kind: .textField(text: "Ada", prompt: "Name")), label: .empty),
                    .sceneControl(
                        SceneControl(index: -1, kind: .picker(selected: 1, options: ["English", "Français"])),
                        label: .empty
                    ),
                    .styled(TextStyle(foreground: .named("red")), .text([])),
                    .padding(NodeInsets(top: 1, leading: 2, bottom: 3, trailing: 4), .divider),
                    .frame(
                        FrameSpec(
                            width: 20,
                            height: nil,
                            maxWidth: .infinity,
                            maxHeight: nil,
                            alignment: .center
                        ),
                        .background(.fill(1), .background(.background, .empty))
                    ),
                    .stack(.depth, alignment: .center, spacing: nil, children: []),
                ]
            )
        )
    )

    /// `node` nested `depth` levels deep in paddings.
    static func nested(_ depth: Int) -> ViewNode {
        var node = ViewNode.empty
        for _ in 0..<depth { node = .padding(NodeInsets(top: 0, leading: 0, bottom: 0, trailing: 0), node) }
        return node
    }

    /// Decodes `bytes` as a tree and returns the refusal's message, or records an issue.
    static func refusal(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> String {
        do {
            let tree = try ViewTree(decoding: bytes)
            Issue.record("bytes that are no tree were read as \(tree.root)", sourceLocation: sourceLocation)
            return ""
        } catch {
            #expect(error.code == .protocolViolation, sourceLocation: sourceLocation)
            return error.message
        }
    }

    @Test("a tree with every kind of node survives its encoding, written as version 2")
    func everyNodeRoundTrip() throws {
        let tree = ViewTree(root: Self.everyNode)
        let bytes = try tree.encoded()
        #expect(bytes.first == 2)
        #expect(try ViewTree(decoding: bytes) == tree)
    }

    @Test("every truncation of a tree is refused as a protocol violation, saying what the input ended before")
    func truncations() throws {
        let bytes = try ViewTree(root: Self.everyNode).encoded()
        for length in 1..<bytes.count {
            let message = Self.refusal(Array(bytes[..<length]))
            #expect(message.contains("ends") || message.contains("claims"), "\(length): \(message)")
        }
    }

    @Test(
        "garbled trees are refused by name: an unknown view, a count beyond the input, trailing bytes, text that is not UTF-8"
    )
    func garbled() throws {
        #expect(Self.refusal([2, 99]).contains("99 is not a kind of view"))
        // A group claiming 2^40 children in a few bytes: refused before anything is allocated.
        #expect(Self.refusal([2, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20]).contains("more than the 0 bytes left"))
        #expect(Self.refusal([2, 0, 0]).contains("after the end of the tree"))
        // A text run of the two bytes 0xFF 0xFE.
        #expect(Self.refusal([2, 2, 1, 0, 2, 0xFF, 0xFE, 0]).contains("is not UTF-8"))
        #expect(Self.refusal([2, 4, 7]).contains("7 is not an axis"))
    }

    @Test("a tree nested deeper than 128 levels is refused when written and when read")
    func depth() throws {
        let deepest = ViewTree(root: Self.nested(ViewNode.maximumDepth - 1))
        #expect(try ViewTree(decoding: deepest.encoded()) == deepest)
        do {
            _ = try ViewTree(root: Self.nested(ViewNode.maximumDepth)).encoded()
            Issue.record("a tree of \(ViewNode.maximumDepth + 1) levels was written")
        } catch {
            #expect(error.code == .coding)
            #expect(error.message.contains("deeper than 128 levels"))
        }
        // Written by hand: 200 paddings, then an empty view.
        var bytes: [UInt8] = [2]
        for _ in 0..<200 { bytes += [10] + [UInt8](repeating: 0, count: 32) }
        bytes.append(0)
        #expect(Self.refusal(bytes).contains("deeper than 128 levels"))
    }

    @Test("a tree an earlier build wrote (version 1, the compact coder's form) is still read")
    func versionOne() throws {
        let bytes = [1] + (try CompactEncoder().encode(Self.everyNode))
        #expect(try ViewTree(decoding: bytes) == ViewTree(root: Self.everyNode))
    }

    @Test(
        "scene messages survive their encoding, start with the scene magic (which no JSON message does), and a garbled one is refused by name"
    )
    func sceneMessages() throws {
        let requests: [SceneRequest] = [
            .open(sceneID: "translate", parameters: ["note": "Met at <b>", "b": ""]),
            .event(scene: 7, control: 0, .tap), .event(scene: 7, control: 1, .toggle),
            .event(scene: 7, control: 2, .text("Ada ≠ <b>")), .event(scene: 7, control: 3, .choose(2)),
            .close(scene: 7),
        ]
        for request in requests {
            let bytes = request.encoded()
            #expect(SceneRequest.isScene(bytes))
            #expect(try SceneRequest(decoding: bytes) == request)
        }
        #expect(!SceneRequest.isScene(Array(#"{"text":"hi"}"#.utf8)))
        let replies: [SceneReply] = [.tree(scene: 3, tree: [2, 0]), .refused(code: "not-found", message: "no scene")]
        for reply in replies { #expect(try SceneReply(decoding: reply.encoded()) == reply) }
        let garbled = SceneRequest.magic + [9]
        let error = #expect(throws: AppexError.self) { try SceneRequest(decoding: garbled) }
        #expect(
            error?.code == .protocolViolation && error?.message.contains("9 is not a kind of scene request") == true
        )
    }

    @Test("requests and replies survive their encoding; a reply that is none is refused, saying where")
    func messages() throws {
        let entry = EncodedEntry(
            date: 1_750_000_000,
            relevance: TimelineEntryRelevance(score: 0.75, duration: 60),
            tree: try ViewTree(root: Self.everyNode).encoded()
        )
        let requests: [WidgetRequest] = [
            .describe, .placeholder(kind: "A", family: .systemSmall),
            .snapshot(kind: "B", family: .accessoryInline, isPreview: true), .timeline(kind: "C", family: .systemLarge),
            .performIntent(kind: "D", control: IntentControl(kind: .button, type: "T", arguments: [])),
        ]
        for request in requests { #expect(try WidgetRequest(decoding: request.encoded()) == request) }
        let replies: [WidgetReply] = [
            .widgets([
                WidgetDescriptor(kind: "A", displayName: "Á", description: "", supportedFamilies: [.systemSmall]),
                WidgetDescriptor(kind: "B", displayName: "B", description: "d", supportedFamilies: []),
            ]),
            .entry(entry),
            .timeline(EncodedTimeline(entries: [entry, entry], policy: .after(1_750_000_900))),
            .timeline(EncodedTimeline(entries: [], policy: .never)),
            .performed,
            // The smallest entries there are (no relevance, no tree bytes): the count check
            // must not refuse them.
            .timeline(
                EncodedTimeline(
                    entries: [
                        EncodedEntry(date: 1, relevance: nil, tree: []),
                        EncodedEntry(date: 2, relevance: nil, tree: []),
                    ],
                    policy: .atEnd
                )
            ),
        ]
        for reply in replies { #expect(try WidgetReply(decoding: reply.encoded()) == reply) }
        do {
            _ = try WidgetReply(decoding: [2, 1, 0, 0, 0])
            Issue.record("a truncated timeline was read")
        } catch {
            #expect(error.code == .protocolViolation)
            #expect(error.message.contains("at byte"), "\(error.message)")
        }
        #expect(throws: AppexError.self) { try WidgetRequest(decoding: [9]) }
    }

    @Test(
        "a configured request and a configurable widget's description survive their encoding; a configuration goes only with a placeholder, snapshot or timeline, and never nests"
    )
    func configuredMessages() throws {
        let configuration = Array("{\"favoriteEmoji\":\"🤩\"}".utf8)
        let timeline = WidgetRequest.configured(
            configuration: configuration,
            request: .timeline(kind: "E", family: .systemSmall)
        )
        #expect(try WidgetRequest(decoding: timeline.encoded()) == timeline)
        let describe = WidgetRequest.configured(configuration: configuration, request: .describe)
        let refused = try #require(throws: AppexError.self) { try WidgetRequest(decoding: describe.encoded()) }
        #expect(refused.code == .protocolViolation && refused.message.contains("goes with a placeholder"))
        // A configuration inside a configuration, many deep: refused at the second, read no further.
        var nested: [UInt8] = []
        for _ in 0..<50_000 { nested += [5, 0] }
        #expect(throws: AppexError.self) { try WidgetRequest(decoding: nested + [0]) }
        let parameter = WidgetParameter(
            name: "mood",
            title: "Mood",
            kind: .choice,
            defaultValue: "\"happy\"",
            isOptional: false,
            options: [WidgetParameter.Option(value: "\"happy\"", title: "Happy")]
        )
        let widgets = WidgetReply.widgets([
            WidgetDescriptor(kind: "S", displayName: "S", description: "", supportedFamilies: [.systemSmall]),
            WidgetDescriptor(
                kind: "E",
                displayName: "E",
                description: "",
                supportedFamilies: [.systemSmall],
                isConfigurable: true,
                parameters: [parameter],
                recommendations: [WidgetRecommendation(description: "Party", configuration: "{}")]
            ),
        ])
        #expect(try WidgetReply(decoding: widgets.encoded()) == widgets)
    }

    @Test("what the widget host stored before (the compact coder's form) is still read beside the new form")
    func storedForms() throws {
        let timeline = EncodedTimeline(
            entries: [EncodedEntry(date: 1, relevance: nil, tree: [2, 0])],
            policy: .atEnd
        )
        #expect(EncodedTimeline(stored: timeline.storedBytes) == timeline)
        #expect(EncodedTimeline(stored: try CompactEncoder().encode(timeline)) == timeline)
        #expect(EncodedTimeline(stored: [0xF2, 1]) == nil)
        let descriptors = [
            WidgetDescriptor(kind: "K", displayName: "N", description: "D", supportedFamilies: [.systemMedium])
        ]
        #expect(WidgetDescriptor.stored(WidgetDescriptor.storedBytes(descriptors)) == descriptors)
        #expect(WidgetDescriptor.stored(try CompactEncoder().encode(descriptors)) == descriptors)
    }

    @Test(
        "a protocol 1 hello (JSON) is read as protocol 1, so the other side refuses it by version, over a real socket"
    )
    func jsonHello() throws {
        let (host, extensionEnd) = try FrameChannel.pair()
        let json = Array(#"{"protocolVersion":1,"extensionBundleIdentifier":"com.example.old"}"#.utf8)
        try extensionEnd.send(Frame(kind: .hello, requestID: 0, payload: json))
        let hello = try Handshake.receive(Handshake.ExtensionHello.self, on: host, timeout: .seconds(5))
        #expect(hello.protocolVersion == 1)
        #expect(Handshake.protocolVersion == 2)
        // This build's hello, both ways.
        var sent = Handshake.ExtensionHello(
            extensionBundleIdentifier: "com.example.new",
            boundExtensionPoint: "com.apple.widgetkit-extension",
            processIdentifier: 4242
        )
        sent.declined = "not today"
        try Handshake.send(sent, on: extensionEnd)
        #expect(try Handshake.receive(Handshake.ExtensionHello.self, on: host, timeout: .seconds(5)) == sent)
        let hostHello = Handshake.HostHello(
            hostBundleIdentifier: "com.example.host",
            extensionBundleIdentifier: "com.example.new",
            extensionPoint: "com.apple.widgetkit-extension",
            channel: FrameChannel.Configuration()
        )
        try Handshake.send(hostHello, on: host)
        #expect(try Handshake.receive(Handshake.HostHello.self, on: extensionEnd, timeout: .seconds(5)) == hostHello)
    }

    @Test(
        "a hello of protocol 123, whose varint is protocol 1's `{`, written with padding is refused by name, never read as another protocol (found by the fuzz target handshake)"
    )
    func reservedProtocolVersion() throws {
        // 0xFB 0x00: 123 as a two-byte varint; then what could be fields.
        let padded: [UInt8] = [0xFB, 0x00, 0, 0, 0, 0, 0x09]
        let (host, extensionEnd) = try FrameChannel.pair()
        try extensionEnd.send(Frame(kind: .hello, requestID: 0, payload: padded))
        let refused = try #require(throws: AppexError.self) {
            try Handshake.receive(Handshake.ExtensionHello.self, on: host, timeout: .seconds(5))
        }
        #expect(refused.code == .protocolViolation)
        #expect(refused.message.contains("the protocol version is 123, which no protocol has"), "\(refused.message)")
        try host.send(Frame(kind: .hello, requestID: 0, payload: padded))
        let alsoRefused = try #require(throws: AppexError.self) {
            try Handshake.receive(Handshake.HostHello.self, on: extensionEnd, timeout: .seconds(5))
        }
        #expect(alsoRefused.code == .protocolViolation)
        // Another version still comes back as that version, for the receiver to refuse by name.
        try extensionEnd.send(Frame(kind: .hello, requestID: 0, payload: [124]))
        #expect(
            try Handshake.receive(Handshake.ExtensionHello.self, on: host, timeout: .seconds(5)).protocolVersion == 124
        )
    }
}
