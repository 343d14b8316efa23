@_exported public import struct AppexStore.ProcessContext
// The vocabulary AppexSecureStore's users need from the modules below it: the error its API
// throws, and who is asking.
@_exported public import struct AppexVocabulary.AppexError
