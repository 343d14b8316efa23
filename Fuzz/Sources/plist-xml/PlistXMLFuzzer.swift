import AppexCore
import FuzzSupport

/// Reads the input as an XML property list with Appex's own reader, as a source Info.plist or `.entitlements` file
/// is read: any bytes must be read or refused with an error, never crash or hang.
@main
enum PlistXMLFuzzer {
    static func main() {
        LibFuzzer.run { input in
            _ = try? PropertyListValue(propertyList: input, format: .xml)
        }
    }
}
