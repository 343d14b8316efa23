/// An OS facility failed while setting up a watcher; carried up as text.
package struct AppexErrorBox: Error {
    package var message: String
    package init(_ message: String) { self.message = message }
}
