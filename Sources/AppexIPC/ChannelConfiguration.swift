/// The limits and thresholds of the channel between a host and an extension: how large a
/// payload may be, and from what size it travels in shared memory instead of the socket.
///
/// A host sets them in `AppExtensionProcess.Configuration.channel`; the extension takes the
/// host's at the handshake.
public struct ChannelConfiguration: Sendable, Codable, Hashable {
    /// The largest payload accepted through the socket. Default 16 MiB.
    public var maximumFrameSize: Int = 16 << 20
    /// The largest payload accepted in shared memory. Default 1 GiB.
    public var maximumSharedPayloadSize: Int = 1 << 30
    /// Payloads of at least this many bytes are sent in shared memory. Default 256 KiB;
    /// `Int.max` keeps everything in the socket.
    public var sharedMemoryThreshold: Int = 256 << 10

    /// The defaults.
    public init() {}
}
