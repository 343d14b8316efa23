/// An OS facility failed while setting up a watcher; carried up as text.
struct AppexErrorBox: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
