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

    /// Creates the login configuration.
    /// - Parameters:
    ///   - issuer: The issuer URL.
    ///   - clientID: The client id.
    public init(issuer: URL, clientID: String) {
        self.issuer = issuer
        self.clientID = clientID
    }

    /// Reads `authorization_endpoint` from the issuer's discovery document.
    /// - Returns: The endpoint.
    public func authorizationEndpoint() -> Single<URL> {
        let discovery = issuer.appendingPathComponent(".well-known/openid-configuration")
        return Single.fromAsync {
            let (data, _) = try await URLSession.shared.data(from: discovery)
            guard let document = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                let endpoint = (document["authorization_endpoint"] as? String).flatMap(URL.init(string:))
            else { throw URLError(.cannotParseResponse) }
            return endpoint
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
