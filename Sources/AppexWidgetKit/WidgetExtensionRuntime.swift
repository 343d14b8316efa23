internal import AppexExtension
import Synchronization

/// The widget extension's side of the widget host's protocol: binds to the system point and
/// answers each request with the widgets it was started with.
enum WidgetExtensionRuntime {
    /// The point every AppexWidgetKit widget binds to.
    static let point = ExtensionPointIdentifier(host: "com.apple", name: "widgetkit-extension")

    static let widgets = Mutex<[ResolvedWidget]>([])

    /// Serves the widget host with `widgets` until it closes the connection (AppExtension's
    /// main: on the main thread, its main-queue loop).
    static func run(_ widgets: [ResolvedWidget]) {
        self.widgets.withLock { $0 = widgets }
        WidgetService.main()
    }

    /// Answers one request's bytes.
    static func answer(_ bytes: [UInt8]) async throws -> [UInt8] {
        // A request that is none is refused as `WidgetRequest(decoding:)` says (protocol-violation).
        try await reply(to: WidgetRequest(decoding: bytes), configuration: []).encoded()
    }

    /// The reply to `request`, for a placed widget configured as `configuration` says.
    private static func reply(to request: WidgetRequest, configuration: [UInt8]) async throws -> WidgetReply {
        let widgets = self.widgets.withLock { $0 }
        func widget(_ kind: String) throws(AppexError) -> ResolvedWidget {
            guard let found = widgets.first(where: { $0.descriptor.kind == kind }) else {
                let known = widgets.map(\.descriptor.kind).joined(separator: ", ")
                throw AppexError(
                    .notFound,
                    "this extension has no widget of kind \(kind) (it has: \(known.isEmpty ? "none" : known))",
                    context: AppexError.Context(widgetKind: kind)
                )
            }
            return found
        }
        func context(_ family: WidgetFamily, preview: Bool) -> TimelineProviderContext {
            TimelineProviderContext(family: family, isPreview: preview, configuration: configuration)
        }
        let reply: WidgetReply
        switch request {
        case .describe:
            var descriptors: [WidgetDescriptor] = []
            for widget in widgets {
                var descriptor = widget.descriptor
                if let settings = widget.configuration {
                    descriptor.isConfigurable = true
                    (descriptor.parameters, descriptor.recommendations) = await settings()
                }
                descriptors.append(descriptor)
            }
            reply = .widgets(descriptors)
        case .configured(let configuration, let request):
            reply = try await Self.reply(to: request, configuration: configuration)
        case .placeholder(let kind, let family):
            reply = .entry(try widget(kind).placeholder(context(family, preview: true)))
        case .snapshot(let kind, let family, let isPreview):
            reply = .entry(try await widget(kind).snapshot(context(family, preview: isPreview)))
        case .timeline(let kind, let family):
            reply = .timeline(try await widget(kind).timeline(context(family, preview: false)))
        case .performIntent(let kind, let control):
            _ = try widget(kind)
            try await control.perform()
            reply = .performed
        }
        return reply
    }
}

/// The extension the widget runs as.
struct WidgetService: AppExtension {
    static var boundAppExtensionPoint: ExtensionPointIdentifier { WidgetExtensionRuntime.point }

    var configuration: ConnectionHandler {
        ConnectionHandler(onConnection: { connection in
            connection.requestHandler = { bytes in try await WidgetExtensionRuntime.answer(bytes) }
            connection.resume()
            return true
        })
    }
}
