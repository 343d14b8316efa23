// The vocabulary AppexAuthLogin's users need from the modules below it: the error its API throws.
@_exported public import struct AppexVocabulary.AppexError
