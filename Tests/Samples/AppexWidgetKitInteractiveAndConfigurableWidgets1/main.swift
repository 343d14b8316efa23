import AppexWidgetKit

struct AddIntent: AppIntent {
    static let title: LocalizedStringResource = "Add"
    @Parameter(title: "Amount") var amount: Int

    init() {}
    init(amount: Int) { self.amount = amount }

    func perform() async throws -> some IntentResult {
        // The widget's container is its HOME: the one place its sandbox lets it write.
        let file = (ProcessInfo.processInfo.environment["HOME"] ?? "/tmp") + "/count"
        let count = (try? String(contentsOfFile: file, encoding: .utf8)).flatMap { Int($0) } ?? 0
        try String(count + amount).write(toFile: file, atomically: true, encoding: .utf8)
        return .result()
    }
}

struct CounterView: View {
    var count: Int
    var starred: Bool

    var body: some View {
        VStack(alignment: .leading) {
            Text("Count \(count)").font(.headline)
            Button("Add one", intent: AddIntent(amount: 1))
            Toggle("Starred", isOn: starred, intent: AddIntent(amount: 0))
        }
    }
}