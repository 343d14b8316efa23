// A test makes and signs the bundles it needs: AppexTesting brings AppexBuild (and with it
// AppexCore), as its fixture bundles and its signing team do.
@_exported public import AppexBuild
