import Foundation
import RemoteModalLocking
import RemoteModalRobot
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A sign-in address whose server never stops sending: `WebSignIn` cuts the body at its
/// limit, over a real socket, and says which limit.
@Suite("WebSignIn bounds the bodies it reads")
struct WebSignInBodyLimitTests {
    /// A one-connection HTTP server on 127.0.0.1 that answers `200` and then sends body bytes
    /// until the client goes away (or `cap` bytes, so that a client without a limit ends too).
    final class EndlessServer: Sendable {
        let port: Int
        let cap: Int
        private let listener: Int32
        /// Body bytes written so far; done once the connection is over.
        let sent = Locked((bytes: 0, done: false))

        init(cap: Int = 256 << 20) throws {
            self.cap = cap
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            listener = fd
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                    bind(fd, raw, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, raw, &length) == 0
                }
            }
            guard bound else { throw POSIXError(.EADDRINUSE) }
            port = Int(UInt16(bigEndian: address.sin_port))
            let sent = sent
            Thread.detachNewThread {
                let client = accept(fd, nil, nil)
                defer {
                    if client >= 0 { close(client) }
                    sent.withLock { $0.done = true }
                }
                guard client >= 0 else { return }
                var request = [UInt8](repeating: 0, count: 4096)
                _ = recv(client, &request, request.count, 0)
                let head = Array("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n".utf8)
                guard send(client, head, head.count, Int32(MSG_NOSIGNAL)) == head.count else { return }
                let block = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
                while sent.withLock({ $0.bytes }) < cap {
                    let wrote = send(client, block, block.count, Int32(MSG_NOSIGNAL))
                    guard wrote > 0 else { return }
                    sent.withLock { $0.bytes += wrote }
                }
            }
        }

        deinit { close(listener) }

        /// Waits until the server's connection is over, at most `seconds`.
        func finished(within seconds: Double) async throws -> Bool {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                if sent.withLock({ $0.done }) { return true }
                try await Task.sleep(for: .milliseconds(20))
            }
            return false
        }
    }

    @Test func anEndlessBodyFailsAtTheDefaultLimitNamingIt() async throws {
        let server = try EndlessServer()
        let failure = await #expect(throws: WebSignIn.Failure.self) {
            _ = try await WebSignIn.follow("http://127.0.0.1:\(server.port)/signin")
        }
        // Without a limit the GET ends at the server's cap with a page (what the old code did).
        // How much the server wrote by then is not asserted: FoundationNetworking reads ahead
        // of its delegate, so under load it may already have taken the whole cap.
        #expect(failure?.description.contains("longer than 1048576 bytes (WebSignIn maxBodyBytes)") == true)
        #expect(try await server.finished(within: 20), "the server's connection ended")
    }

    @Test func theLimitIsTheCallersToChoose() async throws {
        let server = try EndlessServer()
        let failure = await #expect(throws: WebSignIn.Failure.self) {
            _ = try await WebSignIn.follow("http://127.0.0.1:\(server.port)/signin", maxBodyBytes: 1_000)
        }
        #expect(failure?.description.contains("longer than 1000 bytes") == true)
        #expect(try await server.finished(within: 20), "the server's connection ended")
    }
}
