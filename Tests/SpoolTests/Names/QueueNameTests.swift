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

@Suite struct QueueNameTests {
    @Test func namesRoundTrip() {
        let claim = Claim(owner: ProcessIdentity(host: "h.example", pid: 42, startTicks: 99), since: 1_764_412_345)
        let state = RetryState(
            orderMicroseconds: 1_764_412_345_123_456, keyHash: 0xabc, attempts: 3, dueSeconds: 1_764_412_400,
            lastError: "503")
        let name = QueueName(id: "1764412345.M123456P42Q1R00ff00ff.h", state: state, claim: claim)
        #expect(
            name.fileName.string
                == "1764412345.M123456P42Q1R00ff00ff.h:o=1764412345123456,k=0000000000000abc,a=3,t=1764412400,e=503@h.example,42,99,1764412345"
        )
        #expect(QueueName(name.fileName) == name)
    }

    @Test func plainAndBadNames() {
        #expect(QueueName(FileName("job.json"))?.state == nil)
        #expect(QueueName(FileName("job.json"))?.id == "job.json")
        #expect(QueueName(FileName("a b")) == nil)
        #expect(QueueName(FileName("x:garbage")) == nil)
        #expect(QueueName(FileName(bytes: [0x61, 0xFF])) == nil)
        #expect(QueueName(FileName("x.why")) == nil)
        #expect(OperationID.sanitized(FileName(bytes: [0x2E, 0x61, 0x0A, 0xFF])) == "_.a__")
    }

    @Test func originHashIsReadByBothParsers() throws {
        let operation = try Operation(bytes: Array(#"{"method":"PUT","url":"https://API.example:443/x"}"#.utf8))
        let state = RetryState(for: operation, orderMicroseconds: 5)
        #expect(state.originHash == OrderingKey.originHash("https://api.example"))
        let name = QueueName(id: "x", state: state).fileName
        #expect(
            name.string
                == "x:o=5,k=\(OrderingKey.hex(OrderingKey.hash(operation.key))),h=\(String(state.originHash, radix: 16).leftPadded(to: 8))"
        )
        #expect(QueueName(name)?.state == state)
        #expect(name.bytes.withUnsafeBufferPointer { QueueName.Facts($0) }?.originHash == state.originHash)
        for bad in [
            "x:o=5,k=0000000000000abc,h=00000000", "x:o=5,k=0000000000000abc,h=abc",
            "x:o=5,k=0000000000000abc,h=0000000g"
        ] {
            #expect(QueueName(FileName(bad)) == nil, "\(bad)")
            #expect(FileName(bad).bytes.withUnsafeBufferPointer { QueueName.Facts($0) } == nil, "\(bad)")
        }
    }
}
