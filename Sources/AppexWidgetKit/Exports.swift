@_exported public import struct AppexVocabulary.AppexError

// And `URLSession`, `URLRequest`, `HTTPURLResponse`: Linux's Foundation keeps them in
// FoundationNetworking, which SwiftUI's Foundation has no need of. A widget that never fetches
// does not pay for it at launch: `appex bundle` takes the unused libcurl off (`UnusedCurl`).
#if canImport(FoundationNetworking)
@_exported public import FoundationNetworking
#endif
