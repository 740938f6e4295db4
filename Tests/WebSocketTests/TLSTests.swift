import Foundation
import RemoteModalWebSocket
import Testing

/// A self-signed certificate for localhost made with the openssl CLI.
struct SelfSignedCertificate {
    let directory: URL
    var certificate: String { directory.appendingPathComponent("cert.pem").path }
    var key: String { directory.appendingPathComponent("key.pem").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", directory.appendingPathComponent("key.pem").path,
            "-out", directory.appendingPathComponent("cert.pem").path,
        ]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw WebSocketError.invalidState("openssl failed") }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

@Suite("TLS", .serialized)
struct TLSTests {
    @Test func wssRoundTripWithTrustedCertificate() throws {
        let certificate = try SelfSignedCertificate()
        defer { certificate.remove() }
        let server = try makeEchoServer {
            $0.tls = TLSConfiguration(certificatePath: certificate.certificate, privateKeyPath: certificate.key)
        }
        defer { server.stop() }
        let recorder = ClientRecorder()
        let client = try recorder.makeClient(caFile: certificate.certificate)
        defer { client.stop() }
        let id = try client.connect("wss://localhost:\(server.port)/ws")
        #expect(recorder.wait { recorder.isOpen(id) || recorder.failure(id) != nil })
        #expect(recorder.failure(id) == nil)
        client.send(text: "over tls", to: id)
        #expect(recorder.wait { recorder.messages(id) == [.text("over tls")] })
    }

    @Test func untrustedCertificateIsRejectedByTheClient() throws {
        let certificate = try SelfSignedCertificate()
        defer { certificate.remove() }
        let server = try makeEchoServer {
            $0.tls = TLSConfiguration(certificatePath: certificate.certificate, privateKeyPath: certificate.key)
        }
        defer { server.stop() }
        let recorder = ClientRecorder()
        let client = try recorder.makeClient()
        defer { client.stop() }
        let id = try client.connect("wss://localhost:\(server.port)/ws")
        #expect(recorder.wait { recorder.isOpen(id) || recorder.failure(id) != nil })
        #expect(!recorder.isOpen(id))
        #expect(recorder.failure(id) != nil)
    }

    @Test func missingCertificateFailsToStartWithAnError() {
        #expect(throws: WebSocketError.self) {
            _ = try makeEchoServer {
                $0.tls = TLSConfiguration(
                    certificatePath: "/nonexistent/cert.pem", privateKeyPath: "/nonexistent/key.pem")
            }
        }
    }
}
