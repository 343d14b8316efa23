import Foundation

/// A fresh directory under the system's temporary folder, removed with everything in it when
/// the value is released. Each test makes its own.
public final class TemporaryDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String

    /// Creates the directory; `prefix` names it, to help when one is left behind.
    public init(prefix: String = "appex-test") throws {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        var template = Array("\(base)/\(prefix)-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!) }
        guard let created else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: "\(base)/\(prefix)-XXXXXX"])
        }
        path = String(cString: created)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `path/component`.
    public func appending(_ component: String) -> String { path + "/" + component }
}
