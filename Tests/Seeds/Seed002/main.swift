// `Seed002 app onboard PASSCODE` (the first start: the store, a balance in it), `Seed002 app
// login ISSUER` (the user signs in), `Seed002 app background ISSUER` (a background run: the
// seed's backgroundSteps); otherwise the widget.
import AppexAuthLogin
import AppexSAP
import AppexSecureStore
import AppexStore
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.first == "app" else {
    BalanceWidgetExtension.main()
    exit(0)
}
do {
    let host = try ProcessContext.current()
    let provider = OnboardingFlowProvider()
    switch arguments.dropFirst().first {
    case "onboard":
        let passcode = arguments.count > 2 ? arguments[2] : ""
        let context = AppexSAP.OnboardingContext(
            AppexSecureStore.OnboardingContext(host: host, passcode: { _ in passcode })
        )
        let result = await withCheckedContinuation { continuation in
            OnboardingFlowController.onboard(on: provider.onboardingSteps, context: context) {
                continuation.resume(returning: $0)
            }
        }
        guard case .success(let done) = result, let store = done.appex.store else {
            throw AppexError(.configuration, "onboarding failed: \(result)")
        }
        try store.put("1,234.56 EUR", forKey: "balance:ada")
        print("onboarded")
    case "login":
        let accessor = try HostAccessorBuilder(configuration: sessionConfiguration(arguments[2]), context: host)
            .option(.oauth).build()
        try await accessor.login.password(user: "ada", password: "lovelace")
        print("logged in")
    case "background":
        let context = AppexSAP.OnboardingContext(
            AppexSecureStore.OnboardingContext(host: host, passcode: { _ in nil }),
            authenticationConfiguration: sessionConfiguration(arguments[2])
        )
        switch await OnboardingFlowController.background(on: provider.backgroundSteps, context: context) {
        case .success(let done): print("answered \(done.appex.answeredRequests)")
        case .failed(let error): throw error
        }
    default:
        throw AppexError(.configuration, "usage: Seed002 app onboard PASSCODE | login ISSUER | background ISSUER")
    }
} catch {
    FileHandle.standardError.write(Data("Seed002: \(error)\n".utf8))
    exit(1)
}
