import Testing
@testable import Spool

@Suite struct QueueNameTests {
    @Test func namesRoundTrip() {
        let claim = Claim(owner: ProcessIdentity(host: "h.example", pid: 42, startTicks: 99), since: 1_764_412_345)
        let state = RetryState(orderMicroseconds: 1_764_412_345_123_456, keyHash: 0xabc, attempts: 3, dueSeconds: 1_764_412_400, lastError: "503")
        let name = QueueName(id: "1764412345.M123456P42Q1R00ff00ff.h", state: state, claim: claim)
        #expect(name.fileName.string == "1764412345.M123456P42Q1R00ff00ff.h:o=1764412345123456,k=0000000000000abc,a=3,t=1764412400,e=503@h.example,42,99,1764412345")
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
}
