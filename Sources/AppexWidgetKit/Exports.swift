// `import AppexWidgetKit` takes the place of `import WidgetKit` and `import SwiftUI`: like SwiftUI,
// it brings Foundation (`Date`, `URL`, `Calendar`) with it, and the error Appex calls throw.
@_exported public import Foundation

@_exported public import struct AppexVocabulary.AppexError
