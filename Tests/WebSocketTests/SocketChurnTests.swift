import Foundation
import Testing

@testable import RemoteModalWebSocket

/// Issue 33, round six: 6,000 `CONNECT` requests from one address in 4 s, each answered 405
/// and closed by libwebsockets (whose every close walks its whole connection table), took a
/// bystander's p99 from 0.6 to 5 ms. Sockets that end without an upgrade (or soon after it)
/// now cost their address from a token bucket, and an address with none left has its new
/// sockets closed on arrival.
@Suite("Socket churn budget: sockets that end without an upgrade, per address")
struct SocketChurnTests {
    @Test func anAddressHasItsBurstThenItsRate() {
        var budget = SocketChurnBudget(perSecond: 2, burst: 3)
        for _ in 0..<3 {
            #expect(budget.admits("192.0.2.1", now: 10))
            budget.charge("192.0.2.1", now: 10)
        }
        #expect(!budget.admits("192.0.2.1", now: 10), "the burst is spent")
        #expect(budget.admits("192.0.2.2", now: 10), "another address has its own budget")
        #expect(budget.secondsUntilAdmitted("192.0.2.1", now: 10) == 0.5)
        #expect(!budget.admits("192.0.2.1", now: 10.4))
        #expect(budget.admits("192.0.2.1", now: 10.5), "one token back after 1/rate seconds")
        budget.charge("192.0.2.1", now: 10.5)
        #expect(!budget.admits("192.0.2.1", now: 10.6))
        #expect(budget.admits("192.0.2.1", now: 100), "refilled")
    }

    @Test func socketsThatEndAfterTheBucketRanOutStillCount() {
        // Admitted at accept, charged when they end: six admitted together all count.
        var budget = SocketChurnBudget(perSecond: 10, burst: 4)
        for _ in 0..<6 { budget.charge("192.0.2.1", now: 0) }
        #expect(!budget.admits("192.0.2.1", now: 0.25), "two in debt: 0.3 s to a token")
        #expect(budget.admits("192.0.2.1", now: 0.3))
        for _ in 0..<100 { budget.charge("192.0.2.2", now: 0) }
        #expect(budget.secondsUntilAdmitted("192.0.2.2", now: 0) == 0.5, "the debt is at most one burst")
    }

    @Test func aRateOfZeroIsNoBudget() {
        var budget = SocketChurnBudget(perSecond: 0, burst: 1)
        for _ in 0..<100 { budget.charge("192.0.2.1", now: 0) }
        #expect(budget.admits("192.0.2.1", now: 0))
        #expect(budget.trackedCount == 0)
    }

    @Test func theTableIsBoundedAndForgetsFullBucketsAtMostOnceASecond() {
        var budget = SocketChurnBudget(perSecond: 1, burst: 2, maxTracked: 3)
        for index in 0..<3 { budget.charge("192.0.2.\(index)", now: 0) }
        budget.charge("192.0.2.9", now: 0.5)
        #expect(budget.trackedCount == 3, "no bucket is full again: the new address is not tracked")
        #expect(budget.admits("192.0.2.9", now: 0.5), "and is let in")
        budget.charge("192.0.2.10", now: 0.9)
        #expect(budget.trackedCount == 3, "looked over once a second at most")
        budget.charge("192.0.2.10", now: 1.6)
        #expect(budget.trackedCount == 1, "full again past 1 s: forgotten, the new one held")
        budget.charge("192.0.2.10", now: 1.6)
        #expect(!budget.admits("192.0.2.10", now: 1.6))
    }

    @Test func refusedMethodsPastTheBudgetAreClosedOnArrivalAndWebSocketsThatStayCostNothing() throws {
        let server = try makeEchoServer {
            $0.socketChurnPerAddress = 1
            $0.socketChurnBurstPerAddress = 3
        }
        defer { server.stop() }
        let port = server.port
        // Connections that stay are not charged: five of them, and the burst is whole.
        let sockets = (0..<5).map { _ in RawSocket(port: port) }
        defer { for socket in sockets { socket.close() } }
        for socket in sockets { #expect(statusCode(socket.send(upgradeRequest(port: port))) == 101) }
        let connect = "CONNECT example.com:443 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
        for _ in 0..<3 { #expect(statusCode(rawRequest(port: port, connect)) == 405) }
        // The lws close of the third may come a moment after its reply.
        var refused = false
        for _ in 0..<20 where !refused {
            let reply = rawRequest(port: port, connect, timeout: 1)
            refused = reply.isEmpty
            if !refused { Thread.sleep(forTimeInterval: 0.02) }
        }
        #expect(refused, "closed on arrival, no answer")
        #expect(server.stats.refusals["address_churn", default: 0] >= 1)
        Thread.sleep(forTimeInterval: 1.1)
        #expect(statusCode(rawRequest(port: port, connect)) == 405, "a token back after a second")
    }

    /// A trusted proxy (nginx in front of the host) opens and ends sockets for every client
    /// behind it: it is never charged, or one busy proxy would lock everyone out.
    @Test func socketsFromATrustedProxyAreNeverCharged() throws {
        let server = try makeEchoServer {
            $0.socketChurnPerAddress = 1
            $0.socketChurnBurstPerAddress = 3
            $0.trustedProxies = ["127.0.0.1"]
        }
        defer { server.stop() }
        let port = server.port
        let connect = "CONNECT example.com:443 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
        // Ten times the burst, faster than the rate: every one answered, none closed on arrival.
        for _ in 0..<30 { #expect(statusCode(rawRequest(port: port, connect)) == 405) }
        #expect(server.stats.refusals["address_churn", default: 0] == 0)
    }
}
