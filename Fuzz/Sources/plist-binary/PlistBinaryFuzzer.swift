import AppexCore
import FuzzSupport

/// Reads the input as a binary property list (`bplist00`) with Appex's own reader, as a bundle's built Info.plist or
/// a shared-defaults value is read: any bytes must be read or refused with an error, never crash or hang.
@main
enum PlistBinaryFuzzer {
    static func main() {
        LibFuzzer.run { input in
            _ = try? PropertyListValue(propertyList: input, format: .binary)
        }
    }
}
