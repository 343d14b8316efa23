import AppexStore
import AppexWidgetKit
import ContactsKit
import Foundation

struct CountEntry: TimelineEntry { var date: Date; var text: String }

struct CountProvider: TimelineProvider {
    func placeholder(in context: Context) -> CountEntry { CountEntry(date: Date(), text: "42 contacts") }
    func getSnapshot(in context: Context, completion: @escaping (CountEntry) -> Void) { completion(placeholder(in: context)) }
    func getTimeline(in context: Context, completion: @escaping (Timeline<CountEntry>) -> Void) {
        var text = "Log in to ContactsExplorer"
        if let group = try? AppGroup(SharedConfiguration.appGroup, context: ProcessContext.current()),
           (try? LoginStatus(group: group).isUserLoggedIn) == true,
           let count = try? ContactsStore(path: SharedConfiguration.storePath(inGroupContainer: group.containerPath)).count() {
            text = "\(count) contacts"
        }
        completion(Timeline(entries: [CountEntry(date: Date(), text: text)], policy: .after(Date().addingTimeInterval(3600))))
    }
}

@main
struct ContactCount: Widget {
    var body: some WidgetConfiguration {
        StaticConfiguration(kind: "ContactCount", provider: CountProvider()) { entry in
            Text(entry.text).font(.headline).containerBackground(.fill.tertiary, for: .widget)
        }
        .configurationDisplayName("Contact Count")
        .supportedFamilies([.systemSmall])
    }
}