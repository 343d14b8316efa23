import AppexTestTiers
import ContactsKit
import Foundation
import Testing

/// ContactsExplorer's window in Debian's Chromium (Selenium and chromium-driver, which
/// Scripts/setup.sh installs): the app serving its page, a person searching, choosing a contact,
/// picking a language in the translator's scene, and opening the extension browser.
@Suite(.timed, .tags(.product)) struct WindowTests {
    var explorer: ContactsExplorerTests

    init() throws { explorer = try ContactsExplorerTests() }

    /// What every visit starts with: the browser, and waits that poll the DOM.
    static let preamble = #"""
        import json, sys, time
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        url, name, shots = sys.argv[1], sys.argv[2], sys.argv[3]
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900"]:
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        def text(css):
            return driver.execute_script("return Array.from(document.querySelectorAll(arguments[0])).map(e => e.innerText).join('\\n')", css)
        def wait(css, contains=None, seconds=20):
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                items = driver.execute_script("return Array.from(document.querySelectorAll(arguments[0])).map(e => e.innerText)", css)
                if items and (contains is None or any(contains in item for item in items)):
                    return "\n".join(items)
                time.sleep(0.02)
            raise Exception("no %s containing %r; the page says: %s" % (css, contains, text("body")[:1500]))
        def wait_without(css, absent, seconds=20):
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                found = text(css)
                if found and absent not in found:
                    return found
                time.sleep(0.02)
            raise Exception("%s still shows %r" % (css, absent))
        """#

    /// A visit, in one run of the browser: each step waits in the page (20 ms polls), never in
    /// the test; the result is one JSON line.
    static let visit =
        preamble + "\n" + #"""
            result = {}
            try:
                driver.get(url)
                wait("body[data-live='yes']")
                driver.execute_script("window.appexMark = 'kept'")
                wait("#contacts li")
                # Contacts named with markup and script show as text: no element of theirs, no script run.
                result["hostileText"] = "yes" if "<script>" in text("#contacts") else "no"
                result["elements"] = str(driver.execute_script("return document.querySelectorAll('main script, main img, main b').length"))
                driver.execute_script("const s = document.querySelector('#contacts input'); s.value = arguments[0]; s.dispatchEvent(new Event('change', {bubbles: true}))", name)
                result["count"] = wait("#contacts .count", "1 of ")
                driver.execute_script("document.querySelector('#contacts li button').click()")
                result["translated"] = wait("#detail section.scene", "Préfère le courriel.")
                driver.save_screenshot(shots + "/contacts-window.png")
                driver.execute_script("const p = document.querySelector('#detail section.scene select'); p.value = '1'; p.dispatchEvent(new Event('change', {bubbles: true}))")
                result["original"] = wait_without("#detail section.scene", "Préfère le courriel.")
                result["kept"] = driver.execute_script("return window.appexMark")
                driver.get(url.split("/login")[0] + "/extensions")
                result["extensions"] = wait("ul.extensions", "com.lingualabs.translate")
            except Exception as error:
                result["error"] = str(error)[:3000]
            driver.quit()
            print(json.dumps(result))
            """#

    @Test(
        "the app's window in a real browser: contacts named with markup show as text, a search, a contact's detail with the Translate scene of its translator, a language picked in the scene, and the extension browser with Lingua Labs' translator unapproved"
    )
    func window() async throws {
        let server = try TestServer.start()
        let user = try await TestServer.newAccount(contacts: 3, hostile: true)
        let session = try await TestServer.signIn(user)
        let first = try await ContactsAPI(server: server, send: session.send).page(
            modifiedSince: nil,
            cursor: nil,
            limit: 1
        )
        let contact = try #require(first.contacts.first)
        try await session.patch(contact.id, "note", "Prefers email.")
        #expect(try explorer.logIn(user, server: server).status == 0)
        #expect(try explorer.run(["sync"], server: server).status == 0)

        let window = try explorer.start(["window"], server: server)
        defer { if window.isRunning { kill(window.processIdentifier, SIGKILL) } }
        let output = try #require(window.standardOutput as? Pipe).fileHandleForReading
        let link = await Self.line(of: output)
        #expect(
            link.map { $0.hasPrefix("http://") && $0.contains(".localhost:") && $0.contains("/login?token=") } == true,
            "\(link ?? "no line")"
        )

        let shots = FileManager.default.temporaryDirectory.path
        let result = try await Self.run(Self.visit, arguments: [link ?? "", contact.name, shots])
        #expect(result["error"] == nil, "\(result["error"] ?? "")")
        #expect(result["hostileText"] == "yes" && result["elements"] == "0", "\(result)")
        #expect(result["count"]?.hasPrefix("1 of ") == true, "\(result)")
        #expect(result["translated"]?.contains("Prefers email.") == true)
        #expect(result["original"]?.components(separatedBy: "Prefers email.").count == 3, "\(result["original"] ?? "")")
        #expect(result["kept"] == "kept", "the page reloaded")
        #expect(result["extensions"]?.contains("unapproved") == true, "\(result["extensions"] ?? "")")

        kill(window.processIdentifier, SIGTERM)
        let rest = await Self.line(of: output, within: 20)
        #expect(rest == "window stopped")
    }

    /// The lock, the unlock and the logout, in a real browser.
    static let lockVisit =
        preamble + "\n" + #"""
            passcode = sys.argv[4]
            def click(css):
                driver.execute_script("const e = document.querySelector(arguments[0]); if (!e) throw new Error('no ' + arguments[0]); e.click()", css)
            def type_passcode(value):
                driver.execute_script("const f = document.querySelector('#account input[type=password]'); f.value = arguments[0]; f.dispatchEvent(new Event('change', {bubbles: true}))", value)
            result = {}
            try:
                driver.get(url)
                wait("body[data-live='yes']")
                wait("#account input[type=password]")
                click("#account button[data-action=logout]")
                result["refused"] = wait("#window-status", "unlock first")
                type_passcode("not the passcode")
                result["wrong"] = wait("#account", "did not open")
                type_passcode(passcode)
                result["unlocked"] = wait("#account", "Unlocked.")
                result["source"] = "yes" if passcode in driver.page_source else "no"
                click("#account button[data-action=lock]")
                wait("#account input[type=password]")
                type_passcode(passcode)
                wait("#account button[data-action=lock]")
                click("#account button[data-action=logout]")
                result["out"] = wait("#account", "Logged out")
            except Exception as error:
                result["error"] = str(error)[:3000]
            driver.quit()
            print(json.dumps(result))
            """#

    @Test(
        "the app's window behind a passcode: logging out while locked is refused and says why, a wrong passcode opens nothing, the right one unlocks without ever appearing in the page, lock locks again, and log out then works"
    )
    func lockAndUnlock() async throws {
        let server = try TestServer.start()
        let user = try await TestServer.newAccount(contacts: 2)
        #expect(try explorer.logIn(user, server: server).status == 0)
        let quick = ["CONTACTS_SCRYPT_ROUNDS": "1024"]
        let passcode = "window passcode 7"
        let set = try explorer.run(["passcode", "set"], server: server, input: passcode + "\n", variables: quick)
        #expect(set.status == 0, "\(set.err)")

        let window = try explorer.start(["window"], server: server, variables: quick)
        defer { if window.isRunning { kill(window.processIdentifier, SIGKILL) } }
        let output = try #require(window.standardOutput as? Pipe).fileHandleForReading
        let link = await Self.line(of: output)
        let result = try await Self.run(
            Self.lockVisit,
            arguments: [link ?? "", "", FileManager.default.temporaryDirectory.path, passcode]
        )
        #expect(result["error"] == nil, "\(result["error"] ?? "")")
        #expect(result["refused"]?.contains("unlock first") == true)
        #expect(result["wrong"]?.contains("did not open") == true)
        #expect(result["source"] == "no", "the passcode appeared in the page")
        #expect(result["out"]?.contains("Logged out") == true)
        kill(window.processIdentifier, SIGTERM)
    }

    /// A login in the browser: the window's Log in, the server's sign-in page, back to the window.
    static let loginVisit =
        preamble + "\n" + #"""
            user, password = sys.argv[4], sys.argv[5]
            result = {}
            try:
                driver.get(url)
                home = driver.current_url
                wait("body[data-live='yes']")
                result["before"] = wait("#account", "Logged out")
                driver.execute_script("document.querySelector('#account button[data-action=login]').click()")
                wait("#account a[href]")
                sign_in = driver.execute_script("return document.querySelector('#account a[href]').href")
                result["signIn"] = sign_in
                driver.get(sign_in)
                wait("input[name=username]")
                driver.execute_script("document.querySelector('input[name=username]').value = arguments[0]; document.querySelector('input[name=password]').value = arguments[1]; document.querySelector('input[name=password]').form.submit()", user, password)
                # The app's loopback listener took the code: its page says so.
                result["redirect"] = wait("body", "You can close this window")
                # Back to the window at once: the code exchange may still be running. The page shows
                # what the app publishes when it ends, whenever that is (its event stream first sends
                # the page anew if it changed after the page was served).
                driver.get(home)
                result["after"] = wait("#account", "Logged in")
            except Exception as error:
                result["error"] = str(error)[:3000]
            driver.quit()
            print(json.dumps(result))
            """#

    @Test(
        "the app's window logs in in the browser: Log in shows the server's sign-in page (code + PKCE), signing in there logs the app in (the window shows Logged in, and a sync works)"
    )
    func logInInTheBrowser() async throws {
        let server = try TestServer.start()
        let user = try await TestServer.newAccount(contacts: 2)
        let window = try explorer.start(["window"], server: server)
        defer { if window.isRunning { kill(window.processIdentifier, SIGKILL) } }
        let output = try #require(window.standardOutput as? Pipe).fileHandleForReading
        let link = await Self.line(of: output)
        let result = try await Self.run(
            Self.loginVisit,
            arguments: [link ?? "", "", FileManager.default.temporaryDirectory.path, user.username, user.password]
        )
        #expect(result["error"] == nil, "\(result["error"] ?? "")")
        #expect(result["signIn"]?.contains("code_challenge_method=S256") == true, "\(result["signIn"] ?? "")")
        #expect(result["after"]?.contains("Logged in") == true)
        #expect(try explorer.run(["sync"], server: server).out.contains("synced: 2 contacts"))
        kill(window.processIdentifier, SIGTERM)
    }

    /// Runs a visit `script` with `arguments` in the browser and decodes its one JSON line; the
    /// browser's driver is ended whatever happens.
    static func run(_ script: String, arguments: [String]) async throws -> [String: String] {
        let visit = Process()
        visit.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        visit.arguments = ["-c", script] + arguments
        let output = Pipe()
        visit.standardOutput = output
        try visit.runWithSignalsUnblocked()
        defer { if visit.isRunning { visit.terminate() } }
        let json = await line(of: output.fileHandleForReading, within: 120) ?? "{}"
        return try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
    }

    /// The next line of `handle`, read on a Dispatch thread (not Swift's pool), within `seconds`.
    static func line(of handle: FileHandle, within seconds: Double = 60) async -> String? {
        await withCheckedContinuation { continuation in
            let once = OnceBox(continuation)
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { once.resume(nil) }
            DispatchQueue.global().async {
                var bytes = Data()
                while true {
                    let chunk = (try? handle.read(upToCount: 1)) ?? nil
                    guard let chunk, !chunk.isEmpty else { break }
                    if chunk == Data("\n".utf8) { break }
                    bytes.append(chunk)
                }
                once.resume(String(decoding: bytes, as: UTF8.self))
            }
        }
    }
}

/// Resumes a continuation once, from whichever thread gets there first.
final class OnceBox: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<String?, Never>?
    init(_ continuation: CheckedContinuation<String?, Never>) { self.continuation = continuation }
    func resume(_ value: String?) {
        lock.lock()
        let taken = continuation
        continuation = nil
        lock.unlock()
        taken?.resume(returning: value)
    }
}
