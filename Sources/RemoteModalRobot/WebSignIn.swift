import Foundation
import RemoteModalLocking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Follows a web-authentication address as a person's phone would: `GET`, then every
/// redirect to an `http` or `https` address, until the answer is a page (the host served its
/// callback, or the sign-in page itself) or a redirect to another scheme (a native app's
/// callback, which a browser hands to the app rather than fetching it).
///
/// A robot's and a scripted kiosk's sign-in, for tests and unattended screens: no cookies,
/// no forms, no JavaScript. Each request waits at most `timeout`, and each answer's body is
/// counted, not kept, and cut off past `maxBodyBytes` (a hostile server's endless body is
/// a `Failure`, not memory held).
public enum WebSignIn {
    /// Where following an address ended.
    public enum Outcome: Sendable, Equatable {
        /// A redirect to an address of another scheme (`myapp://callback?code=...`): what a
        /// native client answers the modal with.
        case callback(String)
        /// An `http(s)` address that answered without a redirect, with its status.
        case page(String, status: Int)
    }

    /// A sign-in address that could not be followed.
    public struct Failure: Error, CustomStringConvertible {
        /// In words.
        public let description: String
    }

    /// The most redirects followed.
    public static let maxRedirects = 10

    /// The most bytes of one answer's body read by default (1 MiB): a sign-in page or a
    /// redirect is far smaller.
    public static let defaultMaxBodyBytes = 1 << 20

    /// Follows `address` through its redirects.
    /// - Parameters:
    ///   - address: The modal's `url`.
    ///   - timeout: Seconds each request may take.
    ///   - maxBodyBytes: The most bytes of one answer's body read (it is discarded); past it
    ///     the request is cancelled.
    /// - Returns: Where it ended.
    /// - Throws: `Failure` for an address that is not `http(s)`, a failed request, a body
    ///   longer than `maxBodyBytes`, a redirect with no `Location`, or more than
    ///   `maxRedirects` redirects.
    public static func follow(
        _ address: String, timeout: Double = 10, maxBodyBytes: Int = defaultMaxBodyBytes
    ) async throws -> Outcome {
        guard var url = URL(string: address), isWeb(url) else {
            throw Failure(description: "not an http(s) address: \(address.prefix(80))")
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        for _ in 0...maxRedirects {
            let get = BoundedGet(limit: max(0, maxBodyBytes))
            let session = URLSession(configuration: configuration, delegate: get, delegateQueue: nil)
            defer { session.finishTasksAndInvalidate() }
            let response: URLResponse
            do {
                response = try await get.run(URLRequest(url: url), in: session)
            } catch let error as BoundedGet.TooLong {
                throw Failure(
                    description: "GET \(url.absoluteString.prefix(80)): the answer's body is longer than "
                        + "\(error.limit) bytes (WebSignIn maxBodyBytes)")
            } catch {
                throw Failure(description: "GET \(url.absoluteString.prefix(80)) failed: \(error)")
            }
            guard let http = response as? HTTPURLResponse else {
                throw Failure(description: "GET \(url.absoluteString.prefix(80)): not an HTTP answer")
            }
            guard (300..<400).contains(http.statusCode) else {
                return .page(url.absoluteString, status: http.statusCode)
            }
            guard let location = http.value(forHTTPHeaderField: "Location"),
                let next = URL(string: location, relativeTo: url)?.absoluteURL
            else {
                throw Failure(
                    description: "a \(http.statusCode) from \(url.absoluteString.prefix(80)) without Location")
            }
            guard isWeb(next) else { return .callback(location) }
            url = next
        }
        throw Failure(description: "more than \(maxRedirects) redirects from \(address.prefix(80))")
    }

    private static func isWeb(_ url: URL) -> Bool { ["http", "https"].contains(url.scheme?.lowercased() ?? "") }
}

/// One `GET` that hands every redirect back to `WebSignIn` (which looks at its `Location`
/// itself) and counts the body's bytes without keeping them, cancelling past `limit`.
private final class BoundedGet: NSObject, URLSessionDataDelegate, Sendable {
    /// The body went past the limit.
    struct TooLong: Error {
        let limit: Int
    }

    private struct State {
        var response: URLResponse?
        var bytes = 0
        var tooLong = false
        var continuation: CheckedContinuation<URLResponse, any Error>?
    }

    let limit: Int
    private let state = Locked(State())

    init(limit: Int) { self.limit = limit }

    /// Runs the request to its end (or the limit) and returns its response.
    func run(_ request: URLRequest, in session: URLSession) async throws -> URLResponse {
        try await withCheckedThrowingContinuation { continuation in
            state.withLock { $0.continuation = continuation }
            session.dataTask(with: request).resume()
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        state.withLock { $0.response = response }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let cut = state.withLock { state -> Bool in
            state.bytes += data.count
            guard state.bytes > limit, !state.tooLong else { return false }
            state.tooLong = true
            return true
        }
        if cut { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, result) = state.withLock {
            state -> (CheckedContinuation<URLResponse, any Error>?, Result<URLResponse, any Error>) in
            let continuation = state.continuation
            state.continuation = nil
            if state.tooLong { return (continuation, .failure(TooLong(limit: limit))) }
            if let error { return (continuation, .failure(error)) }
            guard let response = state.response ?? task.response else {
                return (continuation, .failure(URLError(.badServerResponse)))
            }
            return (continuation, .success(response))
        }
        continuation?.resume(with: result)
    }
}
