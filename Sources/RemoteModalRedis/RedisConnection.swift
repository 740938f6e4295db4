import CRemoteModalHiredis
import Foundation

/// A Redis reply, copied out of hiredis's reply object.
public enum RedisReply: Sendable, Equatable {
    /// A bulk string (decoded as UTF-8, invalid bytes replaced).
    case string(String)
    /// A status reply (`OK`).
    case status(String)
    /// An integer reply.
    case integer(Int)
    /// The null bulk string or null array (`SET NX` that did not set, a missing key).
    case null
    /// An array reply (pub/sub messages, `EXEC`).
    case array([RedisReply])
    /// An error reply (`ERR ...`, `WRONGTYPE ...`): the command reached Redis and failed.
    case error(String)

    /// The text of a bulk string or status reply.
    public var text: String? {
        switch self {
        case .string(let text), .status(let text): text
        default: nil
        }
    }
}

/// Why talking to Redis failed.
public struct RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure.
    public enum Kind: Sendable, Equatable {
        /// The address is not a `redis://[USER:PASSWORD@]HOST:PORT[/DB]` URL.
        case badEndpoint
        /// Could not connect (refused, unreachable, timed out).
        case connect
        /// The connection broke or timed out while talking (the connection is dropped).
        case io
        /// Redis answered with an error reply.
        case reply
        /// Not connected now (reconnecting after a failure; retried later with backoff).
        case unavailable
    }

    /// What kind of failure.
    public let kind: Kind
    /// hiredis's or Redis's message.
    public let message: String

    /// Creates an error.
    /// - Parameters:
    ///   - kind: The kind.
    ///   - message: The message.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// A readable description.
    public var description: String { "redis \(kind): \(message)" }
}

/// Where Redis is and how to log in: parsed from `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]`.
public struct RedisEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// The host name or address.
    public var host: String
    /// The TCP port.
    public var port: Int
    /// The logical database (`SELECT`); 0 by default.
    public var database: Int
    /// The ACL user for `AUTH`, if any (`nil`: the `default` user).
    public var username: String?
    /// The password for `AUTH`, if any. Never shown in `description`.
    public var password: String?

    /// Creates an endpoint.
    /// - Parameters:
    ///   - host: The host.
    ///   - port: The port.
    ///   - database: The database.
    ///   - username: The ACL user, if any.
    ///   - password: The password, if any.
    public init(host: String, port: Int = 6379, database: Int = 0, username: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.database = database
        self.username = username
        self.password = password
    }

    /// Parses `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]` (`redis://:secret@redis:6379/0` for
    /// `requirepass`, `redis://desk:secret@redis/0` for an ACL user; `%XX` escapes in both).
    /// - Parameter url: The URL.
    /// - Throws: `RedisError` `badEndpoint` (its message never repeats the password).
    public init(url: String) throws(RedisError) {
        guard url.hasPrefix("redis://") else {
            throw RedisError(.badEndpoint, "expected redis://[USER:PASSWORD@]HOST:PORT[/DB]")
        }
        var rest = Substring(url.dropFirst("redis://".count))
        var username: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let user: Substring
            let secret: Substring
            if let colon = credentials.firstIndex(of: ":") {
                user = credentials[..<colon]
                secret = credentials[credentials.index(after: colon)...]
            } else {
                // `redis://PASSWORD@HOST`, as redis-cli's -u reads it.
                user = ""
                secret = credentials
            }
            guard let decodedUser = String(user).removingPercentEncoding,
                let decodedSecret = String(secret).removingPercentEncoding, !decodedSecret.isEmpty
            else { throw RedisError(.badEndpoint, "the credentials in the Redis URL are malformed") }
            username = decodedUser.isEmpty ? nil : decodedUser
            password = decodedSecret
        }
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let db = rest[rest.index(after: slash)...]
            guard db.isEmpty || Int(db).map({ $0 >= 0 && $0 < 65_536 }) == true else {
                throw RedisError(.badEndpoint, "the database in the Redis URL is not a number")
            }
            database = Int(db) ?? 0
            rest = rest[..<slash]
        }
        var port = 6379
        if let colon = rest.lastIndex(of: ":") {
            guard let number = Int(rest[rest.index(after: colon)...]), (1...65_535).contains(number) else {
                throw RedisError(.badEndpoint, "the port in the Redis URL is not a port")
            }
            port = number
            rest = rest[..<colon]
        }
        guard !rest.isEmpty else { throw RedisError(.badEndpoint, "no host in the Redis URL") }
        self.init(host: String(rest), port: port, database: database, username: username, password: password)
    }

    /// `redis://[USER:***@]HOST:PORT/DB`: the password is never shown.
    public var description: String {
        let login = password == nil ? "" : (username ?? "") + ":***@"
        return "redis://\(login)\(host):\(port)/\(database)"
    }
}

/// One blocking hiredis connection. Not thread-safe: one thread uses it at a time
/// (`interrupt()` excepted), which `RedisClient` and `RedisSubscriber` guarantee.
final class RedisConnection {
    private let context: UnsafeMutablePointer<redisContext>

    /// Connects, sets the I/O timeout and selects the database.
    init(_ endpoint: RedisEndpoint, timeoutMilliseconds: Int) throws(RedisError) {
        guard let context = chiredis_connect(endpoint.host, Int32(endpoint.port), Int32(timeoutMilliseconds)) else {
            throw RedisError(.connect, "hiredis could not allocate a context")
        }
        guard context.pointee.err == 0 else {
            let message = Self.errorText(context)
            redisFree(context)
            throw RedisError(.connect, "\(endpoint.host):\(endpoint.port): \(message)")
        }
        self.context = context
        if timeoutMilliseconds > 0, chiredis_set_timeout(context, Int32(timeoutMilliseconds)) != REDIS_OK {
            throw RedisError(.connect, "cannot set the timeout: \(Self.errorText(context))")
        }
        if let password = endpoint.password {
            let arguments = ["AUTH"] + (endpoint.username.map { [$0] } ?? []) + [password]
            if case .error(let message) = try command(arguments) {
                // Redis's words (WRONGPASS, NOAUTH...), never the password.
                throw RedisError(.reply, "AUTH refused: \(message)")
            }
        }
        if endpoint.database != 0 {
            if case .error(let message) = try command(["SELECT", String(endpoint.database)]) {
                throw RedisError(.reply, message)
            }
        }
    }

    deinit { redisFree(context) }

    /// Sends a command and waits for its reply.
    func command(_ arguments: [String]) throws(RedisError) -> RedisReply {
        let reply = withArgv(arguments) { count, argv, lengths in chiredis_command(context, count, argv, lengths) }
        return try take(reply)
    }

    /// Reads the next reply (a subscribed connection's messages).
    func nextReply() throws(RedisError) -> RedisReply {
        try take(chiredis_next_reply(context))
    }

    /// Sets the read timeout (0: wait forever).
    func setTimeout(milliseconds: Int) throws(RedisError) {
        guard chiredis_set_timeout(context, Int32(milliseconds)) == REDIS_OK else {
            throw RedisError(.io, "cannot set the timeout: \(Self.errorText(context))")
        }
    }

    /// Makes a read blocked on another thread return with an error (the socket is shut down).
    func interrupt() { chiredis_shutdown(context) }

    private func take(_ reply: UnsafeMutablePointer<redisReply>?) throws(RedisError) -> RedisReply {
        guard let reply else {
            let message = context.pointee.err == 0 ? "no reply" : Self.errorText(context)
            throw RedisError(.io, message)
        }
        defer { freeReplyObject(reply) }
        return Self.copy(reply)
    }

    private static func copy(_ reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let value = reply.pointee
        func text() -> String {
            guard let str = value.str else { return "" }
            return str.withMemoryRebound(to: UInt8.self, capacity: value.len) {
                String(decoding: UnsafeBufferPointer(start: $0, count: value.len), as: UTF8.self)
            }
        }
        switch value.type {
        case REDIS_REPLY_STRING: return .string(text())
        case REDIS_REPLY_STATUS: return .status(text())
        case REDIS_REPLY_ERROR: return .error(text())
        case REDIS_REPLY_INTEGER: return .integer(Int(value.integer))
        case REDIS_REPLY_ARRAY:
            guard let elements = value.element else { return .array([]) }
            return .array((0..<value.elements).map { index in elements[index].map(copy) ?? .null })
        default: return .null
        }
    }

    private static func errorText(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { bytes in
            let prefix = bytes.prefix { $0 != 0 }
            return String(decoding: prefix, as: UTF8.self)
        }
    }

    private func withArgv<T>(
        _ arguments: [String],
        _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> T
    ) -> T {
        // Each argument as its own NUL-terminated copy, kept alive across the call.
        let copies = arguments.map { argument in Array(argument.utf8CString) }
        var lengths = copies.map { $0.count - 1 }
        var pointers: [UnsafePointer<CChar>?] = []
        pointers.reserveCapacity(copies.count)
        return withExtendedLifetime(copies) {
            var buffers: [UnsafeMutableBufferPointer<CChar>] = []
            defer { buffers.forEach { $0.deallocate() } }
            for copy in copies {
                let buffer = UnsafeMutableBufferPointer<CChar>.allocate(capacity: copy.count)
                _ = buffer.initialize(from: copy)
                buffers.append(buffer)
                pointers.append(UnsafePointer(buffer.baseAddress))
            }
            return pointers.withUnsafeMutableBufferPointer { argv in
                lengths.withUnsafeMutableBufferPointer { lengthBuffer in
                    body(Int32(arguments.count), argv.baseAddress!, UnsafePointer(lengthBuffer.baseAddress!))
                }
            }
        }
    }
}
