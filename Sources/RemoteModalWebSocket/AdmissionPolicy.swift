import Foundation
import RemoteModalTransport

/// The pure parts of admission control: who a client is (`X-Forwarded-For` from trusted
/// proxies only), which `Host` headers name this server, and bearer-token checks. No I/O,
/// so every rule tests without a socket; `ServiceLoop` applies them at the upgrade and to
/// plain HTTP requests.
public enum AdmissionPolicy {
    /// Whether a string is an IPv4 or IPv6 address literal (brackets allowed around IPv6).
    /// - Parameter text: The candidate.
    /// - Returns: `true` for an IP literal such as `10.0.0.1`, `::1` or `[::1]`.
    public static func isIPLiteral(_ text: String) -> Bool {
        normalizedIP(text) != nil
    }

    /// The canonical text form of an IP literal (IPv6 without brackets, lower case,
    /// compressed), or `nil` when the text is not an IP literal.
    /// - Parameter text: The candidate.
    /// - Returns: The canonical form, or `nil`.
    public static func normalizedIP(_ text: String) -> String? {
        // Blanks and brackets trimmed by hand: Foundation's `trimmingCharacters` was 6% of the
        // host's time under a flood of new sockets (every socket's peer passes here).
        var candidate = Substring(text)
        while let first = candidate.first, first == " " || first == "\t" { candidate.removeFirst() }
        while let last = candidate.last, last == " " || last == "\t" { candidate.removeLast() }
        if candidate.hasPrefix("["), candidate.hasSuffix("]") { candidate = candidate.dropFirst().dropLast() }
        guard !candidate.isEmpty, candidate.utf8.count < 64 else { return nil }
        let literal = String(candidate)
        var v4 = in_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            guard inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, literal, &v6) == 1 {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return nil
    }

    /// The address a client is counted under.
    ///
    /// The TCP peer, unless the peer is one of `trustedProxies`: then the right-most entry
    /// of `X-Forwarded-For` that is not itself a trusted proxy (each proxy appends the
    /// address it saw, so entries left of it may be forged by the client and are never
    /// used). An entry that is not an IP literal ends the walk and the peer is used: a
    /// trusted proxy never writes one, so it can only be client-made noise.
    /// - Parameters:
    ///   - peer: The TCP peer's address.
    ///   - forwardedFor: The `X-Forwarded-For` value (repeated headers joined by commas).
    ///   - trustedProxies: Addresses whose `X-Forwarded-For` is believed.
    /// - Returns: The client address, canonical when it is an IP literal.
    public static func clientAddress(peer: String, forwardedFor: String?, trustedProxies: Set<String>) -> String {
        let canonicalPeer = normalizedIP(peer) ?? peer
        guard !trustedProxies.isEmpty, isTrusted(canonicalPeer, trustedProxies), let forwardedFor else {
            return canonicalPeer
        }
        for entry in forwardedFor.split(separator: ",").reversed() {
            guard let address = normalizedIP(String(entry)) else { return canonicalPeer }
            if !isTrusted(address, trustedProxies) { return address }
        }
        return canonicalPeer
    }

    private static func isTrusted(_ canonical: String, _ trustedProxies: Set<String>) -> Bool {
        trustedProxies.contains { (normalizedIP($0) ?? $0) == canonical }
    }

    /// The host name of a `Host` header value without its port, lower case; IPv6
    /// literals without brackets. `nil` when the value is empty or malformed.
    /// - Parameter header: The `Host` header value, for example `example.com:8080` or `[::1]:80`.
    /// - Returns: The host name.
    public static func hostName(ofHostHeader header: String) -> String? {
        let value = header.trimmingCharacters(in: .whitespaces).lowercased()
        guard !value.isEmpty, !value.contains(where: { $0 == "/" || $0 == "@" || $0.isWhitespace }) else {
            return nil
        }
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            let rest = value[value.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCII)) else { return nil }
            return String(value[value.index(after: value.startIndex)..<close])
        }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let name = parts.first, !name.isEmpty else { return nil }
        if parts.count == 2, !parts[1].allSatisfy(\.isNumber) { return nil }
        return name.hasSuffix(".") ? String(name.dropLast()) : String(name)
    }

    /// The hosts a request's `Host` header may name (DNS-rebinding defence).
    public struct AllowedHosts: Sendable, Equatable {
        /// The address the server is bound to.
        public var bindAddress: String
        /// The host of `--public-url`, if any.
        public var publicHost: String?
        /// Extra names (`--allowed-host`); a leading dot allows every subdomain.
        public var names: [String]

        /// Creates the rule.
        /// - Parameters:
        ///   - bindAddress: The bound address.
        ///   - publicHost: The public URL's host.
        ///   - names: Extra allowed names.
        public init(bindAddress: String, publicHost: String? = nil, names: [String] = []) {
            self.bindAddress = bindAddress
            self.publicHost = publicHost
            self.names = names
        }

        /// Whether a `Host` header names this server.
        ///
        /// Allowed: `localhost`, the bind address, any IP literal when bound to every
        /// interface (`0.0.0.0`, `::`; a rebinding attack needs a DNS name, so an IP-literal
        /// `Host` cannot come from one), the public URL's host, and the listed names. The
        /// port is not compared (as Django's `ALLOWED_HOSTS`).
        /// - Parameter header: The `Host` header, or `nil` when absent (never allowed).
        /// - Returns: Whether to serve the request.
        public func allows(_ header: String?) -> Bool {
            guard let header, let name = AdmissionPolicy.hostName(ofHostHeader: header) else { return false }
            if name == "localhost" { return true }
            let bind = AdmissionPolicy.normalizedIP(bindAddress) ?? bindAddress.lowercased()
            if let ip = AdmissionPolicy.normalizedIP(name) {
                if bind == "0.0.0.0" || bind == "::" || ip == bind { return true }
            } else if name == bind {
                return true
            }
            if let publicHost, name == publicHost.lowercased() { return true }
            return names.contains { allowed in
                let allowed = allowed.lowercased()
                if allowed.hasPrefix(".") { return name.hasSuffix(allowed) || name == String(allowed.dropFirst()) }
                return name == allowed
            }
        }
    }

    /// Whether an `Authorization` header carries `Bearer TOKEN`, compared in constant time
    /// (the time depends on the lengths only, never on where the bytes differ).
    /// - Parameters:
    ///   - authorization: The header value, if any.
    ///   - token: The expected token.
    /// - Returns: `true` when the header presents exactly this token.
    public static func bearerMatches(_ authorization: String?, token: String) -> Bool {
        guard let authorization else { return false }
        let parts = authorization.trimmingCharacters(in: .whitespaces).split(
            separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return false }
        let presented = Array(parts[1].trimmingCharacters(in: .whitespaces).utf8)
        let expected = Array(token.utf8)
        var difference = UInt8(presented.count == expected.count ? 0 : 1)
        for index in 0..<max(presented.count, expected.count) {
            let left = index < presented.count ? presented[index] : 0
            let right = index < expected.count ? expected[index] : 0
            difference |= left ^ right
        }
        return difference == 0 && !expected.isEmpty
    }

    /// The subprotocol to select from a `Sec-WebSocket-Protocol` header.
    /// - Parameters:
    ///   - offered: The header: names separated by commas.
    ///   - supported: The one subprotocol the server speaks.
    /// - Returns: `supported` when offered, else `nil`.
    public static func selectedSubprotocol(offered: String, supported: String) -> String? {
        let names = offered.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return names.contains(supported) ? supported : nil
    }

    /// Whether a browser's `Origin` may open a WebSocket: listed in `allowedOrigins`, or the
    /// server's own origin (same scheme, host and port as the `Host` header).
    /// - Parameters:
    ///   - origin: The `Origin` header.
    ///   - host: The `Host` header.
    ///   - secure: Whether the server speaks TLS (`https` origins).
    ///   - allowedOrigins: Extra origins allowed.
    /// - Returns: `true` when allowed.
    public static func originAllowed(_ origin: String, host: String?, secure: Bool, allowedOrigins: [String]) -> Bool {
        if allowedOrigins.contains(origin) { return true }
        guard let host, let url = URL(string: origin), let originHost = url.host else { return false }
        let scheme = secure ? "https" : "http"
        guard url.scheme == scheme else { return false }
        let defaultPort = secure ? 443 : 80
        let originAuthority = "\(originHost):\(url.port ?? defaultPort)"
        let hostAuthority = host.contains(":") ? host : "\(host):\(defaultPort)"
        return originAuthority.lowercased() == hostAuthority.lowercased()
    }
}
