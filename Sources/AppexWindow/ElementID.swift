/// Element ids made from data (a bundle's path, a widget's key): stable for the same data, and
/// plain names whatever the data holds.
enum ElementID {
    /// `prefix-` and the FNV-1a hash (64 bits, hex) of `text`.
    static func make(_ prefix: StaticString, for text: String) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value &*= 0x100_0000_01b3
        }
        let digits = String(value, radix: 16)
        return "\(prefix)-" + String(repeating: "0", count: 16 - digits.count) + digits
    }
}
