import Testing
@testable import Spool
@testable import SpoolSystem
@testable import SpoolTransport
@testable import SpoolNames
@testable import SpoolDocument
@testable import SpoolConfiguration
@testable import SpoolQueue
@testable import SpoolHandlers
@testable import SpoolSending
@testable import SpoolReporting
@testable import SpoolControl

@Suite struct JSONTests {
    @Test func roundTripKeepsOrderAndNumbers() throws {
        let text = #"{"b":1.50,"a":[true,null,"x\n\u00e9"],"c":{}}"#
        #expect(try JSON.parse(text).text == #"{"b":1.50,"a":[true,null,"x\né"],"c":{}}"#)
    }
}
