import AppexCommandCore

// `appex-bundler`: `appex bundle` alone, the tool the appex-bundle plugin runs. It links what
// making and signing a bundle needs (AppexBuild, AppexCore, swift-crypto, ArgumentParser) and
// none of the rest of `appex` (the stores, the hosts, the window's web server), so a new
// package's first `swift package appex-bundle` builds a fraction of it (docs/decisions/0119).
MakeBundle.main()
