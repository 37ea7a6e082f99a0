import Testing
@testable import SpoolSystem
@testable import SpoolNames
@testable import SpoolDocument
@testable import SpoolQueue
@testable import SpoolReporting

/// One operation as `spool-ctl` shows it: its state word, its age and its `--json` object, from values alone.
@Suite struct QueueItemTests {
    /// 2026-11-29T13:00:00Z.
    static let nowSeconds: Int64 = 1_795_957_200

    static func item(_ folder: Spool.Folder, id: String = "op-1", held: Bool = false, due: Int64? = nil,
                     ageSeconds: Int64 = 90, claim: Claim? = nil, operation: Operation? = nil,
                     problem: String? = nil, reason: FilingReason = FilingReason([(String, String)]())) -> QueueItem {
        let order = (nowSeconds - ageSeconds) * 1_000_000 + 250_000
        var state = RetryState(orderMicroseconds: order, keyHash: 0xabc, attempts: 2, dueSeconds: due ?? 0,
                               lastError: "503")
        state.held = held
        let name = QueueName(id: id, state: folder == .failed || folder == .conflict ? nil : state, claim: claim)
        return QueueItem(id: id, folder: folder, fileName: name.fileName, attempts: 2, dueSeconds: due,
                         lastError: "503", orderMicroseconds: order, claim: claim, operation: operation,
                         problem: problem, reason: reason, size: 42)
    }

    static func operation(_ text: String) throws -> Operation { try Operation(bytes: Array(text.utf8)) }

    static let claim = Claim(owner: ProcessIdentity(host: "h.example", pid: 4242, startTicks: 99),
                             since: nowSeconds - 30)

    @Test func stateWordsByFolderHoldAndDueTime() {
        let now = Self.nowSeconds
        #expect(Self.item(.new).stateWord(nowSeconds: now) == "pending")
        #expect(Self.item(.new, due: now + 1).stateWord(nowSeconds: now) == "deferred")
        #expect(Self.item(.new, due: now).stateWord(nowSeconds: now) == "pending", "due now is not deferred")
        #expect(Self.item(.new, due: now - 60).stateWord(nowSeconds: now) == "pending")
        #expect(Self.item(.new, held: true).stateWord(nowSeconds: now) == "held")
        #expect(Self.item(.new, held: true, due: now + 600).stateWord(nowSeconds: now) == "held", "held wins")
        #expect(Self.item(.cur, claim: Self.claim).stateWord(nowSeconds: now) == "sending")
        #expect(Self.item(.cur, held: true, claim: Self.claim).stateWord(nowSeconds: now) == "sending")
        #expect(Self.item(.failed).stateWord(nowSeconds: now) == "failed")
        #expect(Self.item(.conflict).stateWord(nowSeconds: now) == "conflict")
    }

    @Test func heldComesFromTheNameInNewOnly() {
        #expect(Self.item(.new, held: true).held)
        #expect(!Self.item(.new).held)
        #expect(!Self.item(.cur, held: true, claim: Self.claim).held)
        var plain = Self.item(.new)
        plain.fileName = FileName("dropped.json")
        #expect(!plain.held && plain.stateWord(nowSeconds: Self.nowSeconds) == "pending")
    }

    @Test func ageIsWholeSecondsSinceEnqueueAndNeverNegative() {
        #expect(Self.item(.new, ageSeconds: 90).age(nowSeconds: Self.nowSeconds) == 90)
        #expect(Self.item(.new, ageSeconds: 0).age(nowSeconds: Self.nowSeconds) == 0)
        #expect(Self.item(.new, ageSeconds: 86_400).age(nowSeconds: Self.nowSeconds + 10) == 86_410)
        #expect(Self.item(.new, ageSeconds: -120).age(nowSeconds: Self.nowSeconds) == 0, "a clock stepped back")
    }

    @Test func reasonLineIsTheReasonFieldElseTheProblem() {
        let reason = FilingReason([("status", "400"), ("reason", "rejected: 400 Bad Request")])
        #expect(Self.item(.failed, problem: "not JSON", reason: reason).reasonLine == "rejected: 400 Bad Request")
        #expect(Self.item(.failed, problem: "not JSON", reason: FilingReason([("status", "400")])).reasonLine
            == "not JSON")
        #expect(Self.item(.failed).reasonLine == nil)
    }

    @Test func jsonOfAPendingRequestIsOneStableObject() throws {
        let operation = try Self.operation(#"{"method":"PUT","url":"http://api.example/x","key":"k1"}"#)
        let json = Self.item(.new, operation: operation).json(nowSeconds: Self.nowSeconds)
        #expect(json.text == #"{"id":"op-1","state":"pending","folder":"new","#
            + #""file":"op-1:o=1795957110250000,k=0000000000000abc,a=2,e=503","attempts":2,"next_attempt":null,"#
            + #""last_error":"503","method":"PUT","url":"http://api.example/x","key":"k1","#
            + #""enqueued_at":"2026-11-29T12:58:30Z","age_seconds":90,"reason":null,"size":42,"#
            + #""dropped_by":null,"dropped_by_uid":null}"#)
        var dropped = Self.item(.new, operation: operation)
        dropped.producer = 0
        let byRoot = dropped.json(nowSeconds: Self.nowSeconds)
        #expect(byRoot["dropped_by"] == .string("root") && byRoot["dropped_by_uid"] == .number("0"))
    }

    @Test func jsonOfADeferredItemWithoutADocument() {
        let json = Self.item(.new, due: Self.nowSeconds + 300, problem: "not JSON").json(nowSeconds: Self.nowSeconds)
        #expect(json["state"] == .string("deferred"))
        #expect(json["next_attempt"] == .string("2026-11-29T13:05:00Z"))
        #expect(json["method"] == .null && json["url"] == .null && json["key"] == .null)
        #expect(json["reason"] == .string("not JSON"))
        #expect(json["handler"] == nil && json["claimed_by"] == nil && json["why"] == nil)
    }

    @Test func jsonOfAClaimedHandlerJobNamesItsClaimAndArguments() throws {
        let operation = try Self.operation(#"{"handler":"backup","args":["--full","a b"]}"#)
        let json = Self.item(.cur, claim: Self.claim, operation: operation).json(nowSeconds: Self.nowSeconds)
        guard case let .object(members) = json else { Issue.record("not an object: \(json.text)"); return }
        #expect(members.map(\.key) == ["id", "state", "folder", "file", "attempts", "next_attempt", "last_error",
                                       "method", "url", "key", "enqueued_at", "age_seconds", "reason", "size",
                                       "dropped_by", "dropped_by_uid", "handler", "args", "claimed_by", "claimed_at"])
        #expect(json["state"] == .string("sending") && json["folder"] == .string("cur"))
        #expect(json["method"] == .string("RUN") && json["url"] == .string("handler:backup"))
        #expect(json["handler"] == .string("backup"))
        #expect(json["args"] == .array([.string("--full"), .string("a b")]))
        #expect(json["claimed_by"] == .string("h.example,4242"))
        #expect(json["claimed_at"] == .string("2026-11-29T12:59:30Z"))
        #expect(json["file"] == .string(Self.item(.cur, claim: Self.claim).fileName.string ?? ""))
    }

    @Test func fullJSONAddsTheReasonFieldsAndTheDocument() throws {
        let text = #"{"method":"POST","url":"https://b.example/y","x-mine":[1,true]}"#
        let operation = try Self.operation(text)
        let reason = FilingReason([("reason", "rejected: 422"), ("status", "422")])
        let item = Self.item(.failed, operation: operation, reason: reason)
        let full = item.json(nowSeconds: Self.nowSeconds, full: true)
        #expect(full["why"] == .object([(key: "reason", value: .string("rejected: 422")),
                                        (key: "status", value: .string("422"))]))
        #expect(full["document"]?.text == text, "the producer's own fields survive")
        #expect(full["reason"] == .string("rejected: 422"))
        #expect(full["state"] == .string("failed") && full["next_attempt"] == .null)
        #expect(item.json(nowSeconds: Self.nowSeconds)["document"] == nil, "only with full")
        #expect(Self.item(.failed).json(nowSeconds: Self.nowSeconds, full: true)["document"] == .null)
        #expect(Self.item(.failed).json(nowSeconds: Self.nowSeconds, full: true)["why"] == .object([]))
    }

    @Test func anUnreadableFileNameIsEscapedInJSON() {
        var item = Self.item(.failed)
        item.fileName = FileName(bytes: [0x62, 0x61, 0x64, 0x0A, 0xFF])
        #expect(item.json(nowSeconds: Self.nowSeconds)["file"] == .string(#"bad\x0a\xff"#))
    }
}
