// AppexBuild extends AppexCore's types (`AppexBundle.makeExtension`, `sign`): a build tool that
// imports it reads bundles too.
@_exported public import AppexCore
