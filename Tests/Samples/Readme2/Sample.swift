import AppexWidgetKit

@main
struct MyApp {
    static func main() {
        if onOpenURL(perform: { url in print("opened from a widget with \(url)") }) { return }
        // ... the app's own work, which changed what the widget shows, then:
        WidgetCenter.shared.reloadTimelines(ofKind: "MyWidget")
    }
}