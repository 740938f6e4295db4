import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Follows a web-authentication address as a person's phone would: `GET`, then every
/// redirect to an `http` or `https` address, until the answer is a page (the host served its
/// callback, or the sign-in page itself) or a redirect to another scheme (a native app's
/// callback, which a browser hands to the app rather than fetching it).
///
/// A robot's and a scripted kiosk's sign-in, for tests and unattended screens: no cookies,
/// no forms, no JavaScript. Each request waits at most `timeout`.
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

    /// Follows `address` through its redirects.
    /// - Parameters:
    ///   - address: The modal's `url`.
    ///   - timeout: Seconds each request may take.
    /// - Returns: Where it ended.
    /// - Throws: `Failure` for an address that is not `http(s)`, a failed request, a redirect
    ///   with no `Location`, or more than `maxRedirects` redirects.
    public static func follow(_ address: String, timeout: Double = 10) async throws -> Outcome {
        guard var url = URL(string: address), isWeb(url) else {
            throw Failure(description: "not an http(s) address: \(address.prefix(80))")
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        let session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        for _ in 0...maxRedirects {
            let response: URLResponse
            do {
                (_, response) = try await session.data(for: URLRequest(url: url))
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

/// Hands every redirect back to `WebSignIn`, which looks at its `Location` itself.
private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
