import AppexAuth
import AppexAuthLogin
import AppexCommandCore
import AppexCore
import AppexStore
import ArgumentParser
import Foundation

/// `appex auth`: the shared OAuth session from the shell. Logging in acts as the host; the other
/// commands go through the same token manager (and single-flight refresh) as extensions do.
struct Auth: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "Log in, inspect, use, revoke and end the OAuth session host and extensions share.",
        discussion:
            "--config FILE is the JSON form of OAuthConfiguration: issuer, clientID, scopes, appGroup, storage (keychain or defaults). Acts with the owner's authority unless --as names a bundle.",
        subcommands: [AuthLogin.self, AuthStatus.self, AuthToken.self, AuthRevoke.self, AuthLogout.self]
    )
}

/// Which configuration, and on whose authority.
struct SessionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The OAuth configuration (JSON).", valueName: "FILE"))
    var config: String

    @Option(
        name: .customLong("as"),
        help: ArgumentHelp("Act with this signed bundle's entitlements.", valueName: "BUNDLE")
    )
    var bundle: String?

    func context() throws(AppexError) -> ProcessContext {
        try bundle.map { path throws(AppexError) in try ProcessContext(bundleAt: path) } ?? .owner
    }

    /// The token manager, or reports why not and fails with exit code 1.
    func tokenManager() throws -> OAuthTokenManager {
        try reporting { () throws(AppexError) in
            try AccessorBuilder(configuration: OAuthConfiguration.load(from: config), context: context()).option(.oauth)
                .build().tokenManager
        }
    }

    /// The host's accessor (refused for an app extension's bundle), or reports why not.
    func host() throws -> HostAccessor {
        try reporting { () throws(AppexError) in
            try HostAccessorBuilder(configuration: OAuthConfiguration.load(from: config), context: context()).option(
                .oauth
            ).build()
        }
    }
}

struct AuthLogin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract:
            "Log in as the host: --user with --password-stdin (the password grant), or --pkce (a browser, code + PKCE, loopback redirect)."
    )
    @OptionGroup var session: SessionOptions
    @Option(help: ArgumentHelp("The user (with --password-stdin).", valueName: "USER")) var user: String?
    @Flag(help: "Read the password from standard input (never on the command line).") var passwordStdin = false
    @Flag(help: "Sign in in a browser: prints the URL to open and waits for the redirect to 127.0.0.1.") var pkce =
        false

    func validate() throws {
        guard pkce != (user != nil && passwordStdin) else {
            throw ValidationError("pass either --user USER --password-stdin (the password on standard input) or --pkce")
        }
    }

    func run() async throws {
        let host = try session.host()
        let account: UserAccount
        if pkce {
            account = try await reporting { () async throws(AppexError) in
                try await host.login.authorizationCode { url in
                    // Straight to the descriptor: a pipe would hold it in stdio's buffer.
                    FileHandle.standardOutput.write(Data("Open this URL to sign in: \(url.absoluteString)\n".utf8))
                }
            }
        } else {
            var read = FileHandle.standardInput.readDataToEndOfFile()
            if read.last == UInt8(ascii: "\n") { read.removeLast() }
            let password = String(decoding: read, as: UTF8.self)
            let user = user ?? ""
            account = try await reporting { () async throws(AppexError) in
                try await host.login.password(user: user, password: password)
            }
        }
        print("logged in as \(account.name) (\(account.identifier))")
    }
}

struct AuthStatus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract:
            "Whether a user is logged in, who, and when the access token expires (never the tokens). Exit 1 when logged out."
    )
    @OptionGroup var session: SessionOptions

    func run() async throws {
        let manager = try session.tokenManager()
        let tokens = try reporting { () throws(AppexError) in try manager.storedTokens() }
        guard let tokens, let user = manager.loginStatus.currentUser else {
            print("not logged in")
            throw ExitCode.failure
        }
        print("logged in as \(user.name) (\(user.identifier)) at \(user.instanceURL.absoluteString)")
        if let expiry = tokens.expiresAt {
            let left = Int(expiry.timeIntervalSinceNow.rounded())
            print(
                "access token expires \(ISO8601DateFormatter().string(from: expiry)) (\(left >= 0 ? "in \(left) s" : "\(-left) s ago"))"
            )
        }
        print("refresh token: \(tokens.refreshToken == nil ? "none" : "stored")")
    }
}

struct AuthToken: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a fresh access token alone (refreshed through the shared single-flight path when needed)."
    )
    @OptionGroup var session: SessionOptions

    func run() async throws {
        let manager = try session.tokenManager()
        print(try await reporting { () async throws(AppexError) in try await manager.freshTokens().accessToken })
    }
}

struct AuthRevoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract:
            "Revoke the stored refresh token at the server (RFC 7009), then clear the session and publish logged out."
    )
    @OptionGroup var session: SessionOptions

    func run() async throws {
        let manager = try session.tokenManager()
        try await reporting { () async throws(AppexError) in
            guard let refresh = try manager.storedTokens()?.refreshToken else {
                throw AppexError(.notLoggedIn, "no refresh token is stored for \(manager.clientID)")
            }
            try await manager.revoke(refreshToken: refresh)
        }
    }
}

struct AuthLogout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Revoke the tokens, clear the session and publish logged out."
    )
    @OptionGroup var session: SessionOptions

    func run() async throws {
        let manager = try session.tokenManager()
        try await reporting { () async throws(AppexError) in
            if let refresh = try manager.storedTokens()?.refreshToken {
                try? await manager.revoke(refreshToken: refresh)
            }
            try manager.clearSession()
        }
    }
}
