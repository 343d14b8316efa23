import Synchronization

/// Element ids made from data (a bundle's path, a widget's key): the same data gets the same id
/// for the life of the process, different data a different one (a number handed out in order,
/// so no chosen name can collide with another's), and an id is a plain name whatever the data
/// holds.
enum ElementID {
    private static let assigned = Mutex<[String: Int]>([:])

    /// `prefix-N`, N the number of `text` under `prefix`.
    static func make(_ prefix: StaticString, for text: String) -> String {
        let key = "\(prefix)\u{0}\(text)"
        let number = assigned.withLock { assigned in
            if let number = assigned[key] { return number }
            let number = assigned.count + 1
            assigned[key] = number
            return number
        }
        return "\(prefix)-\(number)"
    }
}
