import Glibc

/// Monotonic time in seconds.
func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Repeated measurements of one quantity: median and range.
struct Stats {
    var values: [Double]
    var median: Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
    var min: Double { values.min() ?? 0 }
    var max: Double { values.max() ?? 0 }
    func percentile(_ p: Double) -> Double {
        let sorted = values.sorted()
        return sorted[Swift.min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }
}

/// Formats a number for the report: 3 significant figures, thousands kept whole.
func fmt(_ value: Double) -> String {
    if value >= 1000 { return String(Int(value.rounded())) }
    if value >= 100 { return String(format1(value, 0)) }
    if value >= 10 { return format1(value, 1) }
    return format1(value, 2)
}

func format1(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if decimals == 0, text.hasSuffix(".0") { text.removeLast(2) }
    if let dot = text.firstIndex(of: ".") {
        let fraction = text[text.index(after: dot)...]
        if fraction.count < decimals { text += String(repeating: "0", count: decimals - fraction.count) }
    }
    return text
}

/// "median (min–max) unit".
func describe(_ stats: Stats, _ unit: String) -> String {
    "\(fmt(stats.median)) \(unit) (\(fmt(stats.min))–\(fmt(stats.max)))"
}

/// One line of the final table.
struct Row {
    let measure: String
    let spool: String
    let baseline: String
    let ratio: String
    let target: String
    let met: String
}

/// Collects rows and prints progress as it goes.
final class Report {
    var rows: [Row] = []

    func section(_ title: String) {
        print("\n== \(title)")
        fflush(nil)
    }

    func line(_ text: String) {
        print("   \(text)")
        fflush(nil)
    }

    func add(_ measure: String, spool: String, baseline: String, ratio: Double?, target: String = "", met: Bool? = nil)
    {
        let row = Row(
            measure: measure, spool: spool, baseline: baseline, ratio: ratio.map { format1($0, 2) + "x" } ?? "-",
            target: target, met: met.map { $0 ? "met" : "NOT met" } ?? "")
        rows.append(row)
        print(
            "   \(measure): \(spool) vs \(baseline) -> \(row.ratio) \(target.isEmpty ? "" : "[\(target): \(row.met)]")")
        fflush(nil)
    }

    func table() -> String {
        var out = "| measure | spool | baseline | ratio | target |\n| --- | --- | --- | --- | --- |\n"
        for row in rows {
            out +=
                "| \(row.measure) | \(row.spool) | \(row.baseline) | \(row.ratio) | "
                    + "\(row.target)\(row.met.isEmpty ? "" : " (\(row.met))") |\n"
        }
        return out
    }
}
