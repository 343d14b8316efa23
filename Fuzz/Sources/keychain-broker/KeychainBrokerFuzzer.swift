import AppexCore
@_spi(Fuzzing) import AppexStore
import Foundation
import FuzzSupport

/// Decodes the input as the keychain broker reads what a sandboxed extension sends it
/// (`KeychainBrokerRequest(bytes:)`), and as an extension reads the broker's answer
/// (`KeychainBrokerReply(bytes:)`). Any bytes must decode or be refused with an `AppexError`
/// `protocolViolation`, never crash or hang; what decodes must encode and decode again to the same value.
///
/// `keychain-broker --write-seeds DIR` writes the seed corpus instead: requests and replies as the two sides send them.
@main
enum KeychainBrokerFuzzer {
    static func main() {
        if let folder = Seeds.folderToWrite { writeSeeds(to: folder) }
        LibFuzzer.run { input in
            do throws(AppexError) {
                let request = try KeychainBrokerRequest(bytes: input)
                guard let again = try? KeychainBrokerRequest(bytes: request.encoded()), again == request else {
                    fatalError("a keychain request that decoded did not survive encoding and decoding again")
                }
            } catch {
                guard error.code == .protocolViolation else { fatalError("refused with \(error.code): \(error)") }
            }
            do throws(AppexError) {
                // Compared by bytes, not `==`: an item's dates are Doubles, and a NaN never equals itself.
                let reply = try KeychainBrokerReply(bytes: input)
                let bytes = try reply.encoded()
                guard let again = try? KeychainBrokerReply(bytes: bytes), (try? again.encoded()) == bytes else {
                    fatalError("a keychain reply that decoded did not survive encoding and decoding again")
                }
            } catch {
                guard error.code == .protocolViolation else { fatalError("refused with \(error.code): \(error)") }
            }
        }
    }

    /// Writes every seed to `directory` and exits.
    static func writeSeeds(to directory: String) -> Never {
        let item = KeychainBrokerItem(
            service: "api.example.com",
            account: "ada",
            accessGroup: "TEAMID.com.example",
            label: "Ada's token",
            data: Data(repeating: 7, count: 64),
            created: 0,
            modified: 1_000_000
        )
        let seeds: [(String, KeychainBrokerRequest?, KeychainBrokerReply?)] = [
            ("items.request", .items(service: "api.example.com", account: "ada", accessGroup: "TEAMID.com.example"), nil),
            ("items-any.request", .items(service: nil, account: nil, accessGroup: nil), nil),
            ("set.request", .write(.set, data: Data("s3cret".utf8), service: "s", account: "a", label: "l", accessGroup: nil), nil),
            ("add.request", .write(.add, data: Data(), service: "", account: "", label: nil, accessGroup: "g"), nil),
            ("delete.request", .delete(service: "s", account: "a", accessGroup: "g"), nil),
            ("items.reply", nil, .items([item, item])),
            ("done.reply", nil, .done),
            ("failure.reply", nil, .failure(code: "missing-entitlement", message: "not entitled to group g")),
        ]
        Seeds.write(
            seeds.map { name, request, reply in
                (name, request.flatMap { try? $0.encoded() } ?? reply.flatMap { try? $0.encoded() })
            },
            to: directory,
            target: "keychain-broker"
        )
    }
}
