import Foundation
import Testing

/// Debian's Chromium, headless, driven by Selenium and chromium-driver from Debian's own
/// `/usr/bin/python3` (Scripts/setup.sh installs them): a real browser that a test steers one
/// command at a time, so the test can act on the page, then in a shell, then look again.
///
/// Each command is a JSON line on the driver's input; each answer, a JSON line on its output.
/// Waits happen in the browser (`wait` polls the DOM every 20 ms), never in the test.
final class Browser: Sendable {
    private let child: LineChild

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private struct Command: Encodable {
        var op: String
        var url: String? = nil
        var css: String? = nil
        var text: String? = nil
        var absent: Bool? = nil
        var script: String? = nil
        var path: String? = nil
        var timeout: Double? = nil
    }

    private struct Answer: Decodable {
        var ok: Bool
        var value: String?
        var error: String?
    }

    /// A new browser (its own profile), `width` by `height`; with `dark`, in the dark theme
    /// (pages see `prefers-color-scheme: dark`).
    init(width: Int = 1000, height: Int = 800, dark: Bool = false) async throws {
        child = try LineChild(
            "/usr/bin/python3",
            ["-u", "-c", Self.driver, "\(width)", "\(height)", dark ? "dark" : "light"],
            environment: ProcessInfo.processInfo.environment
        )
        _ = try await perform(Command(op: "ready", timeout: 30))
    }

    deinit {
        child.send(#"{"op":"quit"}"#)
        child.end(within: 10)
    }

    /// Opens `url`.
    func open(_ url: String) async throws { _ = try await perform(Command(op: "open", url: url)) }

    /// Waits until an element matches `css` (and, with `text`, its text contains it), within
    /// `seconds`; returns its text.
    @discardableResult
    func wait(for css: String, containing text: String? = nil, within seconds: Double = 20) async throws -> String {
        try await perform(Command(op: "wait", css: css, text: text, timeout: seconds)) ?? ""
    }

    /// Waits until no element matches `css` (with `text`: none whose text contains it).
    func waitUntilGone(_ css: String, containing text: String? = nil, within seconds: Double = 20) async throws {
        _ = try await perform(Command(op: "wait", css: css, text: text, absent: true, timeout: seconds))
    }

    /// Opens `url` in a new tab of the same browser (its cookies too), and shows that tab.
    func openTab(_ url: String) async throws { _ = try await perform(Command(op: "newtab", url: url)) }

    /// Shows the tab `index` (0: the first).
    func showTab(_ index: Int) async throws { _ = try await perform(Command(op: "tab", text: "\(index)")) }

    /// Clicks the element `css`.
    func click(_ css: String) async throws { _ = try await perform(Command(op: "click", css: css)) }

    /// The text of the element `css`.
    func text(of css: String) async throws -> String { try await perform(Command(op: "text", css: css)) ?? "" }

    /// Runs `script` in the page (reading only: a test's probe of the DOM) and returns its
    /// value, JSON-encoded.
    func evaluate(_ script: String) async throws -> String {
        try await perform(Command(op: "js", script: script)) ?? "null"
    }

    /// Saves a screenshot of the window as a PNG at `path`.
    func screenshot(to path: String) async throws { _ = try await perform(Command(op: "screenshot", path: path)) }

    private func perform(_ command: Command) async throws -> String? {
        let line = String(decoding: try JSONEncoder().encode(command), as: UTF8.self)
        let child = self.child
        let answer: String? = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                child.send(line)
                continuation.resume(returning: child.readLine())
            }
        }
        guard let answer, let decoded = try? JSONDecoder().decode(Answer.self, from: Data(answer.utf8)) else {
            throw Failure(
                description: "the browser's driver ended or answered nonsense to \(command.op): \(answer ?? "nothing")"
            )
        }
        guard decoded.ok else {
            throw Failure(
                description: "browser \(command.op) \(command.css ?? command.url ?? ""): \(decoded.error ?? "?")"
            )
        }
        return decoded.value
    }

    /// The driver: Selenium's Chrome driver on Debian's chromium, headless.
    static let driver = #"""
        import json, sys, time
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=%s,%s" % (sys.argv[1], sys.argv[2])]:
            options.add_argument(flag)
        if sys.argv[3] == "dark":
            options.add_argument("--force-dark-mode")
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        def matches(css, text):
            # In one script: an element replaced by an event between finding it and reading it
            # is never read.
            found = driver.execute_script(
                "return Array.from(document.querySelectorAll(arguments[0])).map(e => e.innerText)", css)
            return [t for t in found if text is None or text in t]
        for line in sys.stdin:
            command = json.loads(line)
            op = command["op"]
            try:
                value = None
                if op == "quit":
                    break
                elif op == "ready":
                    value = "ready"
                elif op == "open":
                    driver.get(command["url"])
                elif op == "wait":
                    deadline = time.monotonic() + command.get("timeout", 10)
                    while True:
                        found = matches(command["css"], command.get("text"))
                        if command.get("absent") and not found:
                            break
                        if not command.get("absent") and found:
                            value = found[0]
                            break
                        if time.monotonic() > deadline:
                            raise Exception("timed out: %s %s %s; the page says: %s" % (
                                "still" if command.get("absent") else "no", command["css"],
                                command.get("text") or "", driver.find_element(By.TAG_NAME, "body").text[:2000]))
                        time.sleep(0.02)
                elif op == "newtab":
                    driver.switch_to.new_window("tab")
                    driver.get(command["url"])
                elif op == "tab":
                    driver.switch_to.window(driver.window_handles[int(command["text"])])
                elif op == "click":
                    # Found and clicked in one script: an element an event replaces meanwhile is
                    # never clicked stale.
                    driver.execute_script(
                        "const e = document.querySelector(arguments[0]);"
                        "if (!e) throw new Error('nothing matches ' + arguments[0]); e.click();", command["css"])
                elif op == "text":
                    value = driver.find_element(By.CSS_SELECTOR, command["css"]).text
                elif op == "js":
                    value = json.dumps(driver.execute_script(command["script"]))
                elif op == "screenshot":
                    driver.save_screenshot(command["path"])
                print(json.dumps({"ok": True, "value": value}), flush=True)
            except Exception as error:
                print(json.dumps({"ok": False, "error": str(error)[:4000]}), flush=True)
        driver.quit()
        """#
}
