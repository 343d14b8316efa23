@_exported public import AppexIPC

@_exported public import struct AppexVocabulary.AppExtensionPoint
@_exported public import struct AppexVocabulary.AppexError
// What an extension names without importing another module: its point's identifier, the error
// every Appex call throws, and the wire's types its handlers use.
@_exported public import struct AppexVocabulary.ExtensionPointIdentifier
