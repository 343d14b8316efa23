@_exported public import struct AppexSystem.AppExtensionPoint
// The vocabulary AppexHost's users need from the modules below it: the error its API throws.
@_exported public import struct AppexSystem.AppexError
@_exported public import struct AppexSystem.BundleProblem
