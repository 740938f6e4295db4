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
        for url in ["http://x:1", "redis://", "redis://h:0", "redis://h:x", "redis://h:1/x", "redis://u:p@h:1"] {
            #expect(throws: RedisError.self) { try RedisEndpoint(url: url) }
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
}
