import Hummingbird

/// What a window's handlers know of a request beyond Hummingbird's own: the session the
/// middleware found for its cookie.
struct WindowRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The request's live session; set by ``WindowMiddleware`` before any route runs.
    var session: WindowGuard.Session?

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
    }
}
