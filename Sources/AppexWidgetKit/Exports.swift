// And Live Activities (`Activity`, `ActivityAttributes`): ActivityKit is a module of its own so
// that `#if canImport(ActivityKit)` holds, as on iOS.
@_exported public import ActivityKit
// `import AppexWidgetKit` takes the place of `import WidgetKit` and `import SwiftUI`: like SwiftUI,
// it brings Foundation (`Date`, `URL`, `Calendar`) with it, and the error Appex calls throw.
@_exported public import Foundation

@_exported public import struct AppexVocabulary.AppexError

// And `URLSession`, `URLRequest`, `HTTPURLResponse`: Linux's Foundation keeps them in
// FoundationNetworking, which SwiftUI's Foundation has no need of. A widget that never fetches
// does not pay for it at launch: `appex bundle` takes the unused libcurl off (`UnusedCurl`).
#if canImport(FoundationNetworking)
@_exported public import FoundationNetworking
#endif
