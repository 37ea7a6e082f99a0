import Testing
@testable import SpoolSystem

/// Sizes in text output read as a person reads them; `--json` keeps bytes.
@Suite struct ByteSizeTests {
    @Test func sizesInIECUnits() {
        #expect(humanSize(0) == "0 bytes" && humanSize(1023) == "1023 bytes")
        #expect(humanSize(1024) == "1 KiB" && humanSize(1536) == "1.5 KiB")
        #expect(humanSize(300 << 10) == "300 KiB")
        #expect(humanSize(209_715_200) == "200 MiB")
        #expect(humanSize(3 << 29) == "1.5 GiB")
        #expect(humanSize(Int(10.4 * 1_073_741_824)) == "10 GiB", "no decimal from ten on")
    }
}
