/// This release of Appex, as `appex --version` prints it. The appex-bundle plugin runs an
/// installed `appex` only when it prints the plugin's own version (`AppexBundlePlugin.appexVersion`,
/// kept equal to this one).
package let appexVersion = "0.1.0"
