import Glibc
import SpoolQueue

/// Case 12: an origin behind nginx's `limit_req` (burst 8, nodelay, 429 without headers), nothing configured:
/// the rate spool-send delivers at against the limiter's, and the share of requests answered 429, for a first
/// run that must learn the limit and a second that starts from `.origins`.
func benchPace(_ report: Report, _ config: Config) {
    report.section("12. Paced origins: nginx limit_req (burst=8 nodelay), --concurrency 32, ten seconds' worth")
    guard which("nginx") != nil else {
        report.line("pace: n/a: needs nginx (Debian's nginx-light)")
        return
    }
    for rate in config.quick ? [40] : [10, 40, 200] {
        let server = BenchServer(
            nginx: """
                location /item/ {
                    limit_req zone=api burst=8 nodelay;
                    limit_req_status 429;
                    root /nonexistent;
                    error_page 404 405 = @accepted;
                }
                location @accepted { return 204; }
                """, tls: false, upstream: "limit_req_zone $binary_remote_addr zone=api:1m rate=\(rate)r/s;")
        defer { server.stop() }
        let count = rate * 10
        let spool = Fixtures.spool()
        for which in ["first run", "next run"] {
            Fixtures.fill(spool, count: count, base: server.base)
            Fixtures.settle()
            // The limiter's burst refills, as between two cron runs.
            usleep(1_000_000)
            let before = OriginRecord.read(try! Spool(path: spool)).first?.tooManyRequests ?? 0
            let finished = run(
                ["\(config.binaries)/spool-send", "--spool", spool, "--once", "--concurrency", "32"])
            let refused = (OriginRecord.read(try! Spool(path: spool)).first?.tooManyRequests ?? 0) - before
            let delivered = Double(count) / finished.seconds
            let share = Double(refused) / Double(count + refused)
            report.add(
                "pace, limit_req \(rate) r/s, \(which): delivered rate (429s)",
                spool: "\(fmt(delivered)) /s (\(refused) answered 429: \(format1(share * 100, 1))%)",
                baseline: "the limiter's rate \(rate) /s", ratio: delivered / Double(rate),
                // The first run pays for learning (its opening burst meets the limiter unpaced); the next starts
                // from what it learned.
                target: which == "first run" ? ">= 0.5x" : ">= 0.8x, <= 5% 429",
                met: which == "first run"
                    ? delivered >= 0.5 * Double(rate) : delivered >= 0.8 * Double(rate) && share <= 0.05)
        }
    }
}
