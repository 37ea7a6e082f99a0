import Testing
@testable import Spool

@Suite struct JSONTests {
    @Test func roundTripKeepsOrderAndNumbers() throws {
        let text = #"{"b":1.50,"a":[true,null,"x\n\u00e9"],"c":{}}"#
        #expect(try JSON.parse(text).text == #"{"b":1.50,"a":[true,null,"x\né"],"c":{}}"#)
    }
}
