import AppexWidgetKit
import Synchronization

/// Decoded view trees by their bytes: the host checks a tree by decoding it when it arrives, and
/// draws it again at every state; each is decoded once. Bounded: past `limit` trees it starts
/// over (a widget host shows tens of widgets of a few entries each).
final class ViewTreeCache: Sendable {
    private let trees = Mutex<[[UInt8]: ViewTree]>([:])
    private let limit: Int

    init(limit: Int = 1024) { self.limit = limit }

    /// The tree `bytes` encode, decoded now or before.
    ///
    /// - Throws: what ``ViewTree/init(decoding:)`` throws.
    func tree(_ bytes: [UInt8]) throws(AppexError) -> ViewTree {
        if let known = trees.withLock({ $0[bytes] }) { return known }
        let tree = try ViewTree(decoding: bytes)
        trees.withLock { trees in
            if trees.count >= limit { trees.removeAll(keepingCapacity: true) }
            trees[bytes] = tree
        }
        return tree
    }
}
