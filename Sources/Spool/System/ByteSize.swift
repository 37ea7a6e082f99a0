/// A size as a person reads it, in IEC units: `512 bytes`, `300 KiB`, `200 MiB`, `1.5 GiB` (one decimal
/// below ten, none when whole). `--json` keeps the bytes.
package func humanSize(_ bytes: Int) -> String {
    guard bytes >= 1024 else { return "\(bytes) bytes" }
    let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]
    var value = Double(bytes) / 1024
    var unit = 0
    while value >= 1024, unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    let tenths = (value * 10).rounded()
    let text = value < 10 && tenths.truncatingRemainder(dividingBy: 10) != 0
        ? String(Double(Int(tenths)) / 10) : String(Int(value.rounded()))
    return "\(text) \(units[unit])"
}
