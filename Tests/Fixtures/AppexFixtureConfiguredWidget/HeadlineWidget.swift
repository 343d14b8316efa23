import AppexWidgetKit

// A widget that fetches, as WidgetKit widgets do: URLSession and URLRequest through the one import,
// from the address its configuration gives. The sandbox lets it connect only with the
// com.apple.security.network.client entitlement.

struct HeadlineIntent: WidgetConfigurationIntent {
    static let title: LocalizedStringResource = "Headline"

    @Parameter(title: "Address")
    var address: String?
}

struct HeadlineEntry: TimelineEntry {
    let date: Date
    let text: String
}

struct HeadlineProvider: AppIntentTimelineProvider {
    func placeholder(in context: Context) -> HeadlineEntry { HeadlineEntry(date: Date(), text: "…") }

    func snapshot(for configuration: HeadlineIntent, in context: Context) async -> HeadlineEntry {
        placeholder(in: context)
    }

    func timeline(for configuration: HeadlineIntent, in context: Context) async -> Timeline<HeadlineEntry> {
        Timeline(
            entries: [HeadlineEntry(date: Date(), text: await headline(from: configuration.address))],
            policy: .never
        )
    }

    func headline(from address: String?) async -> String {
        guard let address, let url = URL(string: address) else { return "no address" }
        var request = URLRequest(url: url)
        request.setValue("AppexFixture", forHTTPHeaderField: "User-Agent")
        request.timeoutInterval = 10
        do {
            let (data, response) = try await URLSession.shared.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            return "\(status) \(String(decoding: data, as: UTF8.self))"
        } catch let error as URLError {
            return "failed \(error.code.rawValue)"
        } catch {
            return "failed"
        }
    }
}

struct HeadlineWidget: Widget {
    var body: some WidgetConfiguration {
        AppIntentConfiguration(kind: "Headline", intent: HeadlineIntent.self, provider: HeadlineProvider()) { entry in
            Text(entry.text)
        }
        .configurationDisplayName("Headline")
    }
}
