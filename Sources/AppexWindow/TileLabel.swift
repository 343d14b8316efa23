import AppexCore
import AppexWidgetHost
import Foundation

/// What the desktop shows under a widget's tile, as a home screen does: whose widget it is (the
/// app it ships in, else its own extension), with that bundle's icon, or a monogram when it has
/// none. Two widgets of one kind from two apps are told apart by it.
struct TileLabel: Equatable {
    /// The owner's name (`CFBundleDisplayName`, else `CFBundleName`, else its folder's name).
    var name: String
    /// The owner's icon as a `data:` URL (a PNG the bundle names in `CFBundleIconFile`), if any.
    var icon: String?
    /// The monogram's colour, from the owner's identifier, when there is no icon.
    var color: String

    /// The largest icon file the desktop reads: icons are small; a bigger file is not one.
    static let largestIcon = 64 * 1024

    /// The label of `widget`: its app's when it ships in one, else its extension's.
    init(of widget: WidgetState) {
        let owner = widget.app ?? widget.discovered.path
        let info = Self.info(at: owner)
        name = info?.localizedName ?? (((owner as NSString).lastPathComponent as NSString).deletingPathExtension)
        icon = info.flatMap { Self.icon(of: $0, in: owner) }
        color = Self.color(for: info?.bundleIdentifier ?? owner)
    }

    /// The label as markup: the icon (or monogram) and the name, as text.
    var markup: Markup {
        let badge: Markup =
            if let icon {
                .element("img", ["class": "app-icon", "src": icon, "alt": ""], [])
            } else {
                .element(
                    "span",
                    ["class": "app-icon monogram", "data-style": "background:\(color)", "aria-hidden": "true"],
                    [.text(name.first.map { String($0).uppercased() } ?? "?")]
                )
            }
        return .element("span", ["class": "app-name"], [badge, .element("span", [:], [.text(name)])])
    }

    /// The `Info.plist` of the bundle at `path`, read as it is (no seal check: discovery made it).
    private static func info(at path: String) -> BundleInfo? {
        let file = path + "/" + AppexBundle.File.info
        guard let handle = FileHandle(forReadingAtPath: file) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 1 << 20), !data.isEmpty else { return nil }
        return BundleInfo(data: Array(data), file: file, role: .hostApp)
    }

    /// The PNG `info` names in `CFBundleIconFile` (`.png` added when the name has no extension), a
    /// file inside the bundle at `bundle` of at most ``largestIcon`` bytes, as a `data:` URL.
    private static func icon(of info: BundleInfo, in bundle: String) -> String? {
        guard case .string(var name)? = info.values["CFBundleIconFile"], !name.isEmpty, !name.hasPrefix("/"),
            !name.split(separator: "/").contains("..")
        else { return nil }
        if (name as NSString).pathExtension.isEmpty { name += ".png" }
        let root = URL(fileURLWithPath: bundle).resolvingSymlinksInPath().path
        let path = URL(fileURLWithPath: bundle + "/" + name).resolvingSymlinksInPath().path
        guard path.hasPrefix(root + "/"), let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: largestIcon + 1), data.count <= largestIcon,
            data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        else { return nil }
        return "data:image/png;base64," + data.base64EncodedString()
    }

    /// One of a few system colours, the same for the same identifier (FNV-1a of its bytes).
    private static func color(for identifier: String) -> String {
        let palette = ["#0a84ff", "#30d158", "#ff9f0a", "#ff375f", "#bf5af2", "#64d2ff", "#ffd60a", "#ac8e68"]
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in identifier.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return palette[Int(hash % UInt64(palette.count))]
    }
}
