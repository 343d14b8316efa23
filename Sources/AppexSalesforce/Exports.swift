// A port replaces `import SalesforceSDKCore` with `import AppexSalesforce`: the SDK's names
// (here) and what they stand for (AppexStore's shared defaults, app groups and login status).
@_exported public import AppexStore
