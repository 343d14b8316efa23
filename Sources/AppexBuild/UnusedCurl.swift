package import Foundation

/// Takes libcurl off an executable's list of libraries when nothing in it calls libcurl: the
/// linker's `--as-needed`, applied after the link, for one library.
///
/// Why it exists: `import AppexWidgetKit` brings FoundationNetworking (`URLSession`), as
/// `import SwiftUI` brings it on Apple platforms. Linked with the static Swift runtime (the
/// appex-bundle plugin's build), FoundationNetworking's code is left out of a widget that never
/// fetches, but its `-lcurl` stays: the loader then maps libcurl and its 29 libraries at every
/// launch: 9.2 ms against 2.6 ms with the entry removed (medians of 400 interleaved launches on
/// the development machine; `widget.timeline.first` would double; docs/decisions/0168).
/// SwiftPM places `-Xlinker --as-needed` after the libraries it should apply to, so the bundle
/// does it: when no undefined symbol of the executable is libcurl's (its exported names all
/// begin with `curl_`) and no version it needs is libcurl's, the `DT_NEEDED` entry naming it is
/// removed from the dynamic section (the entries after it move up; the section ends in
/// `DT_NULL` as before). A widget that fetches
/// keeps libcurl; any other file, or an ELF file it cannot read, is left as it is.
package enum UnusedCurl {
    /// The library's name in `DT_NEEDED`, as libcurl 4's soname begins.
    static let sonamePrefix = "libcurl.so."

    /// `executable`'s bytes with libcurl taken off its libraries if it uses none of it; `nil` when
    /// there is nothing to take off (not a 64-bit little-endian ELF file, no libcurl, or libcurl
    /// used).
    package static func removed(from executable: Data) -> Data? {
        let bytes = [UInt8](executable)
        guard let elf = ELFImage(bytes), let index = elf.unusedCurlEntry() else { return nil }
        var out = bytes
        let entries = elf.dynamicEntries
        // Each entry after the removed one moves up a slot; the freed last slot is DT_NULL.
        for slot in index..<(entries.count - 1) {
            let from = elf.dynamicOffset + (slot + 1) * 16
            let to = elf.dynamicOffset + slot * 16
            out.replaceSubrange(to..<(to + 16), with: bytes[from..<(from + 16)])
        }
        let last = elf.dynamicOffset + (entries.count - 1) * 16
        out.replaceSubrange(last..<(last + 16), with: [UInt8](repeating: 0, count: 16))
        return Data(out)
    }

    /// The libraries `executable` asks the loader for (`DT_NEEDED`), in order; empty when it is
    /// not a 64-bit little-endian ELF file.
    package static func neededLibraries(of executable: Data) -> [String] {
        guard let elf = ELFImage([UInt8](executable)) else { return [] }
        return elf.needed.map(\.name)
    }
}

/// The parts of a 64-bit little-endian ELF file `UnusedCurl` reads: the dynamic section, the
/// dynamic symbols and the versions needed. Every offset is checked against the file's size.
struct ELFImage {
    let bytes: [UInt8]
    /// The dynamic section's file offset.
    let dynamicOffset: Int
    /// Its entries up to and including the first DT_NULL: (tag, value).
    let dynamicEntries: [(tag: UInt64, value: UInt64)]
    /// Section headers: (type, offset, size, link).
    let sections: [(type: UInt32, offset: Int, size: Int, link: Int)]
    /// Loadable segments, to turn an address into a file offset: (address, offset, size).
    let loads: [(address: UInt64, offset: UInt64, size: UInt64)]

    init?(_ bytes: [UInt8]) {
        self.bytes = bytes
        guard bytes.count >= 64, bytes[0..<4] == [0x7F, 0x45, 0x4C, 0x46], bytes[4] == 2, bytes[5] == 1 else {
            return nil
        }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        let phoff = Int(clamping: Self.u64(bytes, 0x20) ?? 0)
        let shoff = Int(clamping: Self.u64(bytes, 0x28) ?? 0)
        let phentsize = u16(0x36)
        let phnum = u16(0x38)
        let shentsize = u16(0x3A)
        let shnum = u16(0x3C)
        guard phoff <= bytes.count, shoff <= bytes.count else { return nil }
        var dynamic: (offset: Int, size: Int)?
        var loads: [(address: UInt64, offset: UInt64, size: UInt64)] = []
        for index in 0..<phnum {
            let at = phoff + index * phentsize
            guard phentsize >= 56, at + 56 <= bytes.count, let type = Self.u32(bytes, at),
                let offset = Self.u64(bytes, at + 8), let address = Self.u64(bytes, at + 16),
                let size = Self.u64(bytes, at + 32)
            else { return nil }
            if type == 1 { loads.append((address, offset, size)) }
            if type == 2 { dynamic = (Int(clamping: offset), Int(clamping: size)) }
        }
        var sections: [(type: UInt32, offset: Int, size: Int, link: Int)] = []
        for index in 0..<shnum {
            let at = shoff + index * shentsize
            guard shentsize >= 64, at + 64 <= bytes.count, let type = Self.u32(bytes, at + 4),
                let offset = Self.u64(bytes, at + 0x18), let size = Self.u64(bytes, at + 0x20),
                let link = Self.u32(bytes, at + 0x28)
            else { return nil }
            // Sections that hold nothing in the file (SHT_NOBITS, or out of it) are kept as empty.
            let inFile = type != 8 && offset <= UInt64(bytes.count) && size <= UInt64(bytes.count) - offset
            sections.append((type, inFile ? Int(offset) : 0, inFile ? Int(size) : 0, Int(link)))
        }
        guard let dynamic, dynamic.offset <= bytes.count, dynamic.size <= bytes.count - dynamic.offset else {
            return nil
        }
        var entries: [(tag: UInt64, value: UInt64)] = []
        var at = dynamic.offset
        while at + 16 <= dynamic.offset + dynamic.size, let tag = Self.u64(bytes, at),
            let value = Self.u64(bytes, at + 8)
        {
            entries.append((tag, value))
            at += 16
            if tag == 0 { break }
        }
        guard entries.last?.tag == 0 else { return nil }
        self.dynamicOffset = dynamic.offset
        self.dynamicEntries = entries
        self.sections = sections
        self.loads = loads
    }

    /// The DT_NEEDED entries: their slot in the dynamic section and the library's name.
    var needed: [(slot: Int, name: String)] {
        guard let strtab = dynamicEntries.first(where: { $0.tag == 5 }).flatMap({ fileOffset(of: $0.value) })
        else { return [] }
        return dynamicEntries.enumerated().compactMap { slot, entry in
            guard entry.tag == 1, let name = string(at: strtab &+ Int(clamping: entry.value)) else { return nil }
            return (slot, name)
        }
    }

    /// The slot of libcurl's DT_NEEDED entry when nothing in the file uses libcurl.
    func unusedCurlEntry() -> Int? {
        guard let curl = needed.first(where: { $0.name.hasPrefix(UnusedCurl.sonamePrefix) }) else { return nil }
        // Undefined dynamic symbols (SHT_DYNSYM, 24-byte entries, section index 0).
        for symbols in sections where symbols.type == 11 {
            guard symbols.link < sections.count else { return nil }
            let names = sections[symbols.link].offset
            var at = symbols.offset + 24
            while at + 24 <= symbols.offset + symbols.size, at + 24 <= bytes.count {
                guard let name = Self.u32(bytes, at), let index = Self.u32(bytes, at + 4).map({ $0 >> 16 }) else {
                    return nil
                }
                if index == 0, name != 0 {
                    guard let symbol = string(at: names + Int(name)) else { return nil }
                    if symbol.hasPrefix("curl_") { return nil }
                }
                at += 24
            }
        }
        // Versions needed (SHT_GNU_verneed): one naming libcurl means a symbol of it is used.
        for versions in sections where versions.type == 0x6FFF_FFFE {
            guard versions.link < sections.count else { return nil }
            let names = sections[versions.link].offset
            var at = versions.offset
            while at + 16 <= bytes.count, at < versions.offset + versions.size {
                guard let file = Self.u32(bytes, at + 4), let next = Self.u32(bytes, at + 12),
                    let name = string(at: names + Int(file))
                else { return nil }
                if name.hasPrefix(UnusedCurl.sonamePrefix) { return nil }
                if next == 0 { break }
                at += Int(next)
            }
        }
        return curl.slot
    }

    /// The file offset of a virtual address, through the loadable segment holding it.
    func fileOffset(of address: UInt64) -> Int? {
        for load in loads where address >= load.address && address - load.address < load.size {
            let (offset, overflow) = load.offset.addingReportingOverflow(address - load.address)
            return overflow ? nil : Int(clamping: offset)
        }
        return nil
    }

    /// The NUL-terminated string at `offset`, if it ends inside the file.
    func string(at offset: Int) -> String? {
        guard offset >= 0, offset < bytes.count, let end = bytes[offset...].firstIndex(of: 0) else { return nil }
        return String(decoding: bytes[offset..<end], as: UTF8.self)
    }

    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32? {
        guard at >= 0, at + 4 <= bytes.count else { return nil }
        return (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * $1) }
    }

    static func u64(_ bytes: [UInt8], _ at: Int) -> UInt64? {
        guard at >= 0, at + 8 <= bytes.count else { return nil }
        return (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * $1) }
    }
}
