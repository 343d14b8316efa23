@_exported public import Foundation

// A port replaces `import SAPFoundation` and `import SAPFioriFlows` with `import AppexSAP`: the
// SDK's names (here), over AppexSecureStore (the passcode-protected store, its paired key and
// steps) and AppexStore (the data-request queue). Those modules are not re-exported whole: their
// own step and context types would clash with the SDK's names a port uses.
@_exported public import class AppexStore.AuxiliaryDataStore
