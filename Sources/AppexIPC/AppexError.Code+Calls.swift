public import AppexVocabulary

// The codes of calls and the channel under them.
extension AppexError.Code {
    /// The extension's process ended while calls were pending (Mirrors XPC's interruption);
    /// the next call launches it again.
    public static var interrupted: Self { .init("interrupted") }
    /// The connection or process was invalidated and takes no more calls.
    public static var invalidated: Self { .init("invalidated") }
    /// A distributed call named, as a generic argument, a type the serving side has not
    /// registered (`IPCActorSystem.register(_:)`): the call was refused and the connection goes
    /// on. The message names the type as the peer sent it, the target and the actor.
    public static var unregisteredType: Self { .init("unregistered-type") }
    /// A frame is larger than this side allows to send.
    public static var frameTooLarge: Self { .init("frame-too-large") }
    /// A system call failed; the ``/AppexVocabulary/AppexError/underlyingError`` is the failed call (`SystemError`: the call and its
    /// `errno`).
    public static var system: Self { .init("system") }
}
