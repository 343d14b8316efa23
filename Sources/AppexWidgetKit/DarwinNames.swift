import Dispatch

// Names Apple's platforms have and Linux's libraries lack, which widget code written for Apple
// platforms uses (Apple's Emoji Rangers sample's image loader does): each is what it is on
// Darwin, under the same name, for a file that imports AppexWidgetKit.

/// A serial dispatch queue, as Dispatch's `DispatchSerialQueue` on Apple platforms (a queue made
/// with a label alone is serial).
public typealias DispatchSerialQueue = DispatchQueue

/// A serial dispatch queue, by the name of its Objective-C class on Apple platforms.
public typealias OS_dispatch_queue_serial = DispatchQueue

/// Nanoseconds in a millisecond, as Darwin's `NSEC_PER_MSEC`.
public let NSEC_PER_MSEC: UInt64 = 1_000_000

extension NSObject {
    /// The class itself, as Objective-C's `+classForCoder` on Apple platforms
    /// (`ImageURLProtocol.classForCoder()` for `URLSessionConfiguration.protocolClasses`).
    public class func classForCoder() -> AnyClass { self }
}
