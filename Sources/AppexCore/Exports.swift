@_exported public import struct AppexSystem.AppExtensionPoint
@_exported public import struct AppexSystem.AppexError
@_exported public import struct AppexSystem.BundleProblem
// The vocabulary AppexCore's users need from the modules below it.
@_exported public import struct AppexSystem.ExtensionPointIdentifier
