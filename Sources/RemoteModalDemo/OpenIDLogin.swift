import Foundation
import RemoteModalReactive

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `login` flow's OpenID Connect client: discovers the authorization endpoint and
/// builds the authorization URL for the code flow.
public struct OpenIDLogin: Sendable {
    /// The issuer URL.
    public let issuer: URL
    /// The client id registered with the issuer.
    public let clientID: String
    /// How long the discovery document may take before the service counts as not answering.
    public let discoveryTimeout: Duration

    /// Creates the login configuration.
    /// - Parameters:
    ///   - issuer: The issuer URL.
    ///   - clientID: The client id.
    ///   - discoveryTimeout: How long the discovery document may take (8 s by default).
    public init(issuer: URL, clientID: String, discoveryTimeout: Duration = .seconds(8)) {
        self.issuer = issuer
        self.clientID = clientID
        self.discoveryTimeout = discoveryTimeout
    }

    /// Where the discovery's hard limit runs.
    private static let timer = SerialDispatchQueueScheduler(label: "remote-modal.openid-discovery")

    /// Reads `authorization_endpoint` from the issuer's discovery document, within
    /// `discoveryTimeout`; fails with ``SignInServiceError`` (words for the person, never a
    /// raw `NSURLErrorDomain` dump) when the service is down, hung or answers nonsense.
    /// - Returns: The endpoint.
    public func authorizationEndpoint() -> Single<URL> {
        let discovery = issuer.appendingPathComponent(".well-known/openid-configuration")
        let limit = discoveryTimeout
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        return Single.fromAsync { () async throws -> URL in
            var request = URLRequest(url: discovery)
            request.timeoutInterval = seconds
            let data: Data
            let response: URLResponse
            do {
                (data, response) = try await URLSession.shared.data(for: request)
            } catch let error as URLError {
                throw SignInServiceError(error, limit: limit)
            }
            if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
                throw SignInServiceError.unexpectedAnswer
            }
            guard let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let endpoint = (document["authorization_endpoint"] as? String).flatMap(URL.init(string:))
            else { throw SignInServiceError.unexpectedAnswer }
            return endpoint
        }
        // URLSession's timeout is an idle one: a service trickling bytes is cut here.
        .timeout(limit, scheduler: Self.timer)
        .catch { error in
            if case RxError.timeout = error { return .error(SignInServiceError.notAnswering(limit)) }
            return .error(error)
        }
    }

    /// The authorization request for the code flow.
    /// - Parameters:
    ///   - endpoint: The authorization endpoint.
    ///   - callbackURL: The redirect URI.
    ///   - state: The OAuth state.
    /// - Returns: The URL to open.
    public func authorizeURL(endpoint: URL, callbackURL: URL, state: String) -> URL {
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
        components.queryItems =
            (components.queryItems ?? []) + [
                URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: clientID),
                URLQueryItem(name: "redirect_uri", value: callbackURL.absoluteString),
                URLQueryItem(name: "scope", value: "openid"), URLQueryItem(name: "state", value: state),
            ]
        return components.url!
    }
}

/// Why the sign-in service could not be used, in the person's words.
public struct SignInServiceError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What the person is told.
    public let description: String

    /// The service does not answer within `limit` (hung, or a network that stalls).
    /// - Parameter limit: How long it was given.
    /// - Returns: The error.
    public static func notAnswering(_ limit: Duration) -> SignInServiceError {
        SignInServiceError(
            description:
                "The sign-in service is not answering (no reply within \(limit.components.seconds) s). Try again later."
        )
    }

    /// The service answered something that is no OpenID discovery document.
    public static let unexpectedAnswer = SignInServiceError(
        description: "The sign-in service answered, but not as a sign-in service does. Try again later.")

    /// The service cannot be reached at all (nothing listens, no route, no such name).
    public static let unreachable = SignInServiceError(
        description: "The sign-in service is not answering (it cannot be reached). Try again later.")

    init(description: String) {
        self.description = description
    }

    init(_ error: URLError, limit: Duration) {
        switch error.code {
        case .timedOut: self = .notAnswering(limit)
        case .badServerResponse, .cannotParseResponse, .zeroByteResource: self = .unexpectedAnswer
        default: self = .unreachable
        }
    }
}
