@_spi(Fuzzing) import AppexAuth
import Foundation
import FuzzSupport

/// Reads the input as the body of a token endpoint's answer, as `OAuthTokenManager` reads the answer to every refresh
/// (`OAuthTokenManager.refreshResult(status:body:endpoint:previous:now:)`): with HTTP 200, a token response (RFC 6749
/// §5.1) that becomes a `TokenSet`; with HTTP 400, an error response (§5.2). It reads the input as a stored token set
/// too (`TokenSet.decoded(from:key:)`), as every process of the group reads the session another one stored. Any bytes
/// must be read or refused (`retryable` for an answer, `storage` for a stored set), never crash or hang. A token set
/// read must survive storage: encoded and decoded again, it is the same (its dates to the last bit a `Double` keeps).
///
/// `token-response --write-seeds DIR` writes the seed corpus instead: answers as the test server (django-oauth-toolkit)
/// gives them, success and refusals, and stored token sets (what `Fuzz/Corpus/token-response` holds).
@main
enum TokenResponseFuzzer {
    static let endpoint = URL(string: "https://auth.example.com/o/token/")!
    static let now = Date(timeIntervalSince1970: 1_750_000_000)
    static let previous = TokenSet(
        accessToken: "previous-access",
        refreshToken: "previous-refresh",
        expiresAt: now,
        scope: "contacts",
        obtainedAt: now.addingTimeInterval(-3600)
    )

    static func main() {
        if let folder = Seeds.folderToWrite { writeSeeds(to: folder) }
        LibFuzzer.run { input in
            let body = Data(input)
            for status in [200, 400] {
                switch OAuthTokenManager.refreshResult(
                    status: status,
                    body: body,
                    endpoint: endpoint,
                    previous: previous,
                    now: now
                ) {
                case .success(let tokens):
                    guard status == 200 else { fatalError("tokens read from an answer with HTTP \(status)") }
                    checkStorage(tokens)
                case .errorResponse(_, _, let answered):
                    guard status == 400, answered == status else {
                        fatalError("a refusal read from an answer with HTTP \(status), said to be \(answered)")
                    }
                case .transportError(let error):
                    guard error.code == .retryable else {
                        fatalError("an unreadable answer is \(error.code), not retryable: \(error)")
                    }
                }
            }
            do throws(AppexError) {
                checkStorage(try TokenSet.decoded(from: body, key: "tokens:fuzz"))
            } catch {
                guard error.code == .storage else {
                    fatalError("a stored token set was refused with \(error.code), not storage: \(error)")
                }
            }
        }
    }

    /// `tokens` must encode for storage and decode to the same token set.
    static func checkStorage(_ tokens: TokenSet) {
        let again: TokenSet
        do throws(AppexError) {
            again = try TokenSet.decoded(from: try tokens.encoded(), key: "tokens:fuzz")
        } catch {
            fatalError("a token set that was read does not survive storage: \(error)")
        }
        var same = again
        // Stored as seconds since 1970 and read back as seconds since 2001: a date of more than 2^53 s may come
        // back a unit in the last place away (the two epochs differ by 978,307,200 s).
        if let stored = again.expiresAt, let expiry = tokens.expiresAt, isClose(stored, expiry) {
            same.expiresAt = expiry
        }
        if isClose(again.obtainedAt, tokens.obtainedAt) { same.obtainedAt = tokens.obtainedAt }
        guard same == tokens else {
            fatalError("a token set that was read comes back from storage as another: \(tokens) became \(again)")
        }
        _ = again.needsRefresh(leeway: 5, now: now)
    }

    /// Whether two dates are at most two units in the last place apart.
    static func isClose(_ a: Date, _ b: Date) -> Bool {
        let (x, y) = (a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
        return abs(x - y) <= 2 * max(abs(x), abs(y)).ulp
    }

    /// Writes every seed to `directory` and exits: answers as `NAME.json`, stored token sets as `stored-NAME.json`.
    static func writeSeeds(to directory: String) -> Never {
        let answers = [
            "token": #"""
            {"access_token": "Cp3dJ9aZ5r8WqFx0b1LmN2oP4sT6uV", "expires_in": 36000, "token_type": "Bearer", "scope": "contacts.read contacts.write", "refresh_token": "r7Yk2Qw9Xe4Tz1Lp6Mn3Bv8Cx5"}
            """#,
            "token-minimal": #"{"access_token":"a","token_type":"bearer"}"#,
            "token-no-refresh": #"{"access_token": "x", "expires_in": 2, "token_type": "Bearer"}"#,
            "token-extra": #"""
            {"access_token":"x","expires_in":-1,"id_token":"eyJhbGciOiJub25lIn0.e30.","nested":{"a":[1,2.5e3,null,true]},"scope":null}
            """#,
            "error": #"{"error": "invalid_grant", "error_description": "Invalid refresh token"}"#,
            "error-minimal": #"{"error":"invalid_client"}"#,
            "error-unicode":
                #"{"error":"invalid_request","error_description":"Mot de passe \u00e9chou\u00e9 \ud83d\udd11","error_uri":"https://auth.example.com/e"}"#,
        ]
        var seeds: [(name: String, bytes: [UInt8]?)] = answers.sorted { $0.key < $1.key }.map {
            ($0.key + ".json", Array($0.value.utf8))
        }
        let stored = [
            "stored.json": previous,
            "stored-no-expiry.json": TokenSet(
                accessToken: "a",
                refreshToken: nil,
                expiresAt: nil,
                scope: nil,
                obtainedAt: now
            ),
        ]
        for (name, tokens) in stored.sorted(by: { $0.key < $1.key }) {
            seeds.append((name, (try? tokens.encoded()).map { Array($0) }))
        }
        Seeds.write(seeds, to: directory, target: "token-response")
    }
}
