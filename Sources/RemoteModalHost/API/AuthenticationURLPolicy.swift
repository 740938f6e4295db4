import Foundation

/// Which sign-in URLs a host presents: `https`, and `http` only to a loopback address (a
/// development identity provider), naming a host and no user name or password before it.
/// Anything else (`javascript:`, `data:`, `file:`, a custom scheme, plain `http` across a
/// network, `https://trusted.example@evil.example/` which reads as one host and opens
/// another) would run, leak or mislead in the client that opens it, so the Single fails with
/// `invalidConfiguration` and nothing is presented. A URL of another scheme is not quoted
/// in the reason (it may be a script).
enum AuthenticationURLPolicy {
    /// Why a URL may not be opened for a sign-in, or `nil` when it may.
    /// - Parameter url: The authorization URL.
    /// - Returns: The refusal.
    static func refusal(_ url: URL) -> RemoteModalError? {
        let scheme = url.scheme?.lowercased()
        guard scheme == "https" || scheme == "http" else {
            let named = scheme.map { String($0.prefix(32)) + ":" } ?? "a URL without a scheme"
            return .invalidConfiguration("a sign-in URL must be https, not \(named)")
        }
        guard let host = url.host, !host.isEmpty else {
            return .invalidConfiguration("a sign-in URL needs a host: \(shown(url))")
        }
        guard url.user == nil, url.password == nil else {
            return .invalidConfiguration(
                "a sign-in URL may not carry a user name or password before its host (it opens \(host))")
        }
        if scheme == "http", !isLoopback(host) {
            return .invalidConfiguration("a sign-in URL must be https (http only on loopback): \(shown(url))")
        }
        return nil
    }

    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The URL for an error message: its scheme and host, never its query (a state, a code).
    private static func shown(_ url: URL) -> String {
        let text = url.absoluteString
        let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }).map { String(text[..<$0]) } ?? text
        return cut.count > 120 ? String(cut.prefix(120)) + "…" : cut
    }
}
