import AppexWindow

let browser = try await ExtensionBrowserPage(hostBundleAt: "/opt/MyApp.app")
let window = try WindowServer(pages: [browser])
try await window.run(stopsOnSignals: true) { url in print(url) }