// A port replaces `import IdsvrHaapiSdk` with `import AppexCurity`: the HAAPI SDK's names (here)
// and what they stand for (AppexAuth's shared session, AppexStore's groups and keychain).
@_exported public import AppexAuth
