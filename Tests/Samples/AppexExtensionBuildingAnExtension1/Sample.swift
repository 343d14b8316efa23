import AppexExtension

struct Question: Codable, Sendable { var text: String }
struct Answer: Codable, Sendable { var text: String }

@main
struct AskingExtension: AppExtension {
    static let boundAppExtensionPoint = ExtensionPointIdentifier(host: "com.example.hostapp", name: "HostAppFeature")
    var configuration: some AppExtensionConfiguration {
        ConnectionHandler { (question: Question) -> Answer in
            do throws(AppexError) {
                return try await AppExtensionContext.callHost(question, expecting: Answer.self, timeout: .seconds(5))
            } catch let error where error.code == .deadlineExceeded {
                return Answer(text: "the host (pid \(error.context.peer ?? 0)) did not answer in time")
            } catch {
                throw error  // the host's caller gets it as a remote failure, in the words of error.description
            }
        }
    }
}