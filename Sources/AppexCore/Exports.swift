@_exported public import struct AppexVocabulary.AppExtensionPoint
@_exported public import struct AppexVocabulary.AppexError
@_exported public import struct AppexVocabulary.BundleProblem
// The vocabulary AppexCore's users need from the modules below it.
@_exported public import struct AppexVocabulary.ExtensionPointIdentifier
