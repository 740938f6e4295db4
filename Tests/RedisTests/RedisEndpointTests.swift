import RemoteModalRedis
import Testing

struct RedisEndpointTests {
    @Test func parsesHostPortAndDatabase() throws {
        #expect(
            try RedisEndpoint(url: "redis://127.0.0.1:6390/3")
                == RedisEndpoint(host: "127.0.0.1", port: 6390, database: 3))
        #expect(try RedisEndpoint(url: "redis://redis") == RedisEndpoint(host: "redis", port: 6379, database: 0))
        #expect(try RedisEndpoint(url: "redis://redis:7000/") == RedisEndpoint(host: "redis", port: 7000, database: 0))
    }

    @Test func refusesWhatIsNotARedisURL() {
        for url in [
            "http://x:1", "redis://", "redis://h:0", "redis://h:x", "redis://h:1/x", "redis://u:@h:1", "redis://:%zz@h",
        ] {
            #expect(throws: RedisError.self) { try RedisEndpoint(url: url) }
        }
    }

    @Test func readsAPasswordAndAnACLUserAndNeverShowsThePassword() throws {
        let requirepass = try RedisEndpoint(url: "redis://:s3cr%40t@redis:6380/2")
        #expect(requirepass == RedisEndpoint(host: "redis", port: 6380, database: 2, password: "s3cr@t"))
        let acl = try RedisEndpoint(url: "redis://desk:p%3Aw@10.0.0.5/1")
        #expect(acl == RedisEndpoint(host: "10.0.0.5", port: 6379, database: 1, username: "desk", password: "p:w"))
        #expect(try RedisEndpoint(url: "redis://only@h").password == "only")
        #expect(!acl.description.contains("p:w") && !acl.description.contains("p%3Aw"))
        #expect(acl.description == "redis://desk:***@10.0.0.5:6379/1")
        #expect(RedisEndpoint(host: "h").description == "redis://h:6379/0")
        // A refusal does not repeat the URL (it holds the password).
        do {
            _ = try RedisEndpoint(url: "redis://u:hunter22@h:99999")
            Issue.record("a bad port was accepted")
        } catch {
            #expect(!error.message.contains("hunter22"))
        }
    }

    @Test func backoffDoublesUpToItsMaximum() {
        let failing = RedisClient(
            endpoint: RedisEndpoint(host: "127.0.0.1", port: 1), timeoutMilliseconds: 200,
            backoff: RedisBackoff(initial: 5, maximum: 10))
        // The first attempt really connects (and is refused); the next fails fast.
        guard case .failure(let first) = failing.sendAndWait(["PING"]) else {
            Issue.record("port 1 answered")
            return
        }
        #expect(first.kind == .connect)
        guard case .failure(let second) = failing.sendAndWait(["PING"]) else {
            Issue.record("port 1 answered")
            return
        }
        #expect(second.kind == .unavailable)
    }

    @Test func retryNowEndsTheBackoffSoTheNextCommandConnects() {
        let failing = RedisClient(
            endpoint: RedisEndpoint(host: "127.0.0.1", port: 1), timeoutMilliseconds: 200,
            backoff: RedisBackoff(initial: 60, maximum: 60))
        _ = failing.sendAndWait(["PING"])
        for _ in 0..<5 {
            guard case .failure(let fast) = failing.sendAndWait(["PING"]) else { return }
            #expect(fast.kind == .unavailable)
        }
        failing.retryNow()
        guard case .failure(let again) = failing.sendAndWait(["PING"]) else {
            Issue.record("port 1 answered")
            return
        }
        #expect(again.kind == .connect, "the command after retryNow() connects (and is refused)")
    }
}
