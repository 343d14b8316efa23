// swift-format-ignore-file
// Seed 002, SAP BTP SDK for iOS, "Widget Extensions": its four code listings as the document
// prints them, byte for byte but for: the imports (SAPFoundation and SAPFioriFlows became
// AppexSAP), the document's elisions that compile on no platform (a line `...`, `let
// eSPAKAuxiliary = //fetch the eSPAKAuxiliary`, and the closing brace its last listing leaves
// out; Examples/README.md, "The seeds' code on Linux"), and after the placeholder comment "load
// data for widget" one line of this app's. The listings are members of the app's own types
// (OnboardingFlowProvider, WidgetDataService), in extensions here; the rest is in App.swift.
import AppexSAP

extension OnboardingFlowProvider {
private func configuredStoreManagerStep() -> StoreManagerStep {
        let step = StoreManagerStep()
        // ...
        step.auxiliaryParameters = getAuxiliaryParameters()
        return step
    }

    func getAuxiliaryParameters() -> AuxiliaryParameters {
        let obfuscatedPrimaryKey: [UInt8] = [52, 93, 21, 7, 76, 88, 77, 11, 17, 91, 21, 20, 15, 54, 5, 16, 39, 13, 57, 35, 14, 27, 20, 11, 3, 74, 49, 20, 23, 9, 42, 24, 4, 42, 38, 13, 82, 71, 15, 69, 52, 41, 41, 73]
        let apiKeyAuthenticationConfig: APIKeyAuthenticationConfig? = getAPIKeyAuthenticationConfig()
        let dataStore = try! AuxiliaryConfiguration.getSharedStore()
        let auxDataRequestManager: AuxiliaryDataRequestManager? = try? AuxiliaryDataRequestManager(dataStore: dataStore)
        let dataContainer: DefaultAuxiliaryDataRequest<WidgetDataKey>? = try? auxDataRequestManager?.getDataRequest()
        let eSPAKAuxiliary: Data? = dataContainer?.eSPAKAuxiliary
        let onboardingStatusName: String = AuxiliaryConfiguration.onboardingStatusName
        return AuxiliaryParameters(sharedStoreName: AuxiliaryConfiguration.sharedStoreName, sharedAccessGroup: AuxiliaryConfiguration.sharedAccessGroup, obfuscatedPrimaryKey: obfuscatedPrimaryKey, eSPAKAuxiliary: eSPAKAuxiliary, apiKeyAuthenicationConfig: apiKeyAuthenticationConfig, onboardingStatusName: onboardingStatusName)
    }
}

extension WidgetDataService {
public func initiateDataRequest(requestInfo: WidgetDataKey) throws {
        let eSPAKAuxiliary = try fetchESPAKAuxiliary() //fetch the eSPAKAuxiliary
        let request = DefaultAuxiliaryDataRequest<YourAuxiliaryDataKey>(info: requestInfo, eSPAKAux: eSPAKAuxiliary, kind: AuxiliaryConfiguration.widgetKind)
        try self.dataRequestManager.putDataRequest(dataRequest: request)
    }
}

extension OnboardingFlowProvider {
public var backgroundSteps: [OnboardingStep] {
        return [
            self.configuredStoreManagerStep(),
            self.configuredWelcomeScreenStep(),
            CompositeStep(steps: SAPcpmsDefaultSteps.configuration),
            OAuth2AuthenticationStep(presenter: FioriASWebAuthenticationSessionPresenter()),
            AuxiliaryCommunicationStep(),
        ]
    }
}

open class AuxiliaryCommunicationStep: OnboardingStep {

public func background(context: OnboardingContext, completionHandler: @escaping (OnboardingResult) -> Void) {
        //load data for widget
        loadDataForWidget(context: context, completionHandler: completionHandler)
    }
}
