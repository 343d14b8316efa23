public import AppexStore

/// The Salesforce Mobile SDK's name for AppexStore's `DataSharingHelper`, so that
/// `SFSDKDatasharingHelper.sharedInstance().appGroupEnabled = true` compiles as written.
public typealias SFSDKDatasharingHelper = DataSharingHelper

extension DataSharingHelper {
    /// The process's helper, as the SDK's `+[SFSDKDatasharingHelper sharedInstance]` spells it:
    /// `DataSharingHelper.shared`.
    public static func sharedInstance() -> DataSharingHelper { shared }
}
