import Foundation
public import Testing

/// The tiers the tests run in (docs/ARCHITECTURE.md, "Tests"): a suite or test names its tier
/// with a tag; one without is in the main tier. `Scripts/test.sh` runs one tier at a time by
/// setting `APPEX_TEST_TIER` (every suite's ``TimedTrait`` cancels the tests of other tiers); a
/// plain `swift test` runs every tier.
public enum Tier: String, CaseIterable, Sendable {
    /// Every suite without a tier's tag: the library, the CLI, the fixtures, at six at once.
    case main
    /// Tests that measure time or count the process's threads: run by themselves.
    case alone
    /// Pages driven in headless Chromium: two at once, after the main tier.
    case browser
    /// The product (Examples/): ContactsExplorer against the real server, the demo's story.
    case product
    /// Runs of the templates' READMEs, each compiling a new package: the full run only, last.
    case template

    /// The tier `APPEX_TEST_TIER` selects, or `nil` (run every tier).
    static let selected: Tier? = ProcessInfo.processInfo.environment["APPEX_TEST_TIER"].flatMap(Tier.init(rawValue:))

    /// The tier a test with `tags` belongs to.
    static func of(_ tags: Set<Tag>) -> Tier {
        if tags.contains(.template) { return .template }
        if tags.contains(.product) { return .product }
        if tags.contains(.browser) { return .browser }
        if tags.contains(.alone) { return .alone }
        return .main
    }
}

extension Tag {
    /// ``Tier/alone``: measures time or the process's threads; runs by itself.
    @Tag public static var alone: Self
    /// ``Tier/browser``: drives headless Chromium.
    @Tag public static var browser: Self
    /// ``Tier/product``: the product's tests (Examples/).
    @Tag public static var product: Self
    /// ``Tier/template``: runs a template's README in a new package.
    @Tag public static var template: Self
}
