@_exported public import AppexIPC

@_exported public import struct AppexSystem.AppExtensionPoint
@_exported public import struct AppexSystem.AppexError
// What an extension names without importing another module: its point's identifier, the error
// every Appex call throws, and the wire's types its handlers use.
@_exported public import struct AppexSystem.ExtensionPointIdentifier
