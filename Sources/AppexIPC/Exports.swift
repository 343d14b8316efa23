// The vocabulary AppexIPC's users need from the module below it: the error its API throws.
@_exported public import struct AppexVocabulary.AppexError
