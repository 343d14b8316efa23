import AppexTestTiers
import Foundation
import Testing

@testable import AppexSystem

/// `Syscalls.makeDirectories`, which every launch calls for its extension's directories: one
/// `mkdir` when they exist, the parents made only when one is missing.
@Suite(.timed) struct MakeDirectoriesTests {
    private func scratch() throws -> String {
        let path = NSTemporaryDirectory() + "/appex-mkdirs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test("missing parents are made with the mode, in order; existing ones are left as they are")
    func makesMissingParents() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/a", withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root + "/a")
        try Syscalls.makeDirectories(root + "/a/b/c/d", mode: 0o700)
        for path in ["/a/b", "/a/b/c", "/a/b/c/d"] {
            #expect(try mode(root + path) == 0o700, "\(path)")
        }
        #expect(try mode(root + "/a") == 0o755, "an existing parent's mode is not changed")
    }

    @Test("an existing directory is left alone, twice over; only the last component missing is made")
    func existingAndLastMissing() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Syscalls.makeDirectories(root + "/x", mode: 0o700)
        try Syscalls.makeDirectories(root + "/x", mode: 0o700)
        try FileManager.default.setAttributes([.posixPermissions: 0o750], ofItemAtPath: root + "/x")
        try Syscalls.makeDirectories(root + "/x", mode: 0o700)
        #expect(try mode(root + "/x") == 0o750)
        try Syscalls.makeDirectories(root + "/x/y", mode: 0o700)
        #expect(try mode(root + "/x/y") == 0o700)
    }

    @Test("a file where a parent should be is an error naming the call, and nothing is made")
    func fileInTheWay() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(FileManager.default.createFile(atPath: root + "/file", contents: Data()))
        #expect(throws: SystemError.self) { try Syscalls.makeDirectories(root + "/file/sub/leaf", mode: 0o700) }
        #expect(!FileManager.default.fileExists(atPath: root + "/file/sub"))
    }
}
