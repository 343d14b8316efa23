// A host app imports AppexHost alone, as Apple's host code imports ExtensionKit alone: its API
// speaks AppexCore's types (identities, environments, bundles, `@Definition` points), so AppexCore
// comes with it, and the error its API throws from the module below.
@_exported public import AppexCore

@_exported public import struct AppexVocabulary.AppExtensionPoint
@_exported public import struct AppexVocabulary.AppexError
@_exported public import struct AppexVocabulary.BundleProblem
