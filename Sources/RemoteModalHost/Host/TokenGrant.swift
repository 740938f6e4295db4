import Foundation
import RemoteModalProtocol

/// What one access token allows: the name other clients see, and the groups it may join.
///
/// Loaded from a token file (`--token-file`):
///
/// ```json
/// {"tokens": [
///   {"token": "lobby-kiosk-1-secret", "name": "Lobby kiosk 1", "groups": ["lobby"]},
///   {"token": "desk-secret", "name": "Security desk", "groups": "*"},
///   {"token": "visitor-secret", "name": "Visitor"}
/// ]}
/// ```
///
/// `groups` is a list, `"*"` for any group, or absent for none. A client whose `hello`
/// asks for a group its token does not grant is refused (`error` `unauthorized`, close
/// 1008); the `client.name` it claims is replaced by the grant's `name`.
public struct TokenGrant: Sendable, Equatable {
    /// The secret the client sends in `hello.token`.
    public var token: String
    /// The name other clients see, whatever the client claims; `nil` keeps the claimed name.
    public var name: String?
    /// The groups this token may join; `nil` for any group.
    public var groups: Set<String>?

    /// Creates a grant.
    /// - Parameters:
    ///   - token: The secret.
    ///   - name: The name shown to others (`nil`: the client's own).
    ///   - groups: The groups it may join (`nil`: any).
    public init(token: String, name: String?, groups: Set<String>?) {
        self.token = token
        self.name = name
        self.groups = groups
    }

    /// Whether the grant allows joining `group` (no group is always allowed).
    /// - Parameter group: The group asked for in `hello`.
    /// - Returns: `true` when allowed.
    public func allows(group: String?) -> Bool {
        guard let group else { return true }
        return groups?.contains(group) ?? true
    }

    /// An error in a token file, naming the entry.
    public struct FileError: Error, CustomStringConvertible {
        /// What is wrong.
        public let description: String
    }

    /// Reads a token file.
    /// - Parameter path: The file.
    /// - Returns: The grants, in file order.
    /// - Throws: `FileError` naming the file and entry when it cannot be read or does not fit.
    public static func load(path: String) throws -> [TokenGrant] {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else { throw FileError(description: "cannot read token file '\(path)'") }
        do {
            return try parse(text)
        } catch let error as FileError {
            throw FileError(description: "token file '\(path)': \(error.description)")
        }
    }

    /// Parses a token file's text.
    /// - Parameter text: The JSON text.
    /// - Returns: The grants.
    /// - Throws: `FileError` naming the entry that does not fit.
    public static func parse(_ text: String) throws -> [TokenGrant] {
        let json: JSONValue
        do {
            json = try JSONParser().parse(text)
        } catch {
            throw FileError(description: "not JSON: \(error.description)")
        }
        guard let entries = json["tokens"]?.arrayValue else {
            throw FileError(description: "expected {\"tokens\": [...]}")
        }
        var grants: [TokenGrant] = []
        var seen: Set<String> = []
        for (index, entry) in entries.enumerated() {
            guard let token = entry["token"]?.stringValue, token.utf8.count >= 16 else {
                throw FileError(description: "tokens[\(index)]: 'token' must be a string of at least 16 bytes")
            }
            guard seen.insert(token).inserted else {
                throw FileError(description: "tokens[\(index)]: the same token appears twice")
            }
            guard let name = entry["name"]?.stringValue, !name.isEmpty else {
                throw FileError(description: "tokens[\(index)]: 'name' (the name shown to others) is required")
            }
            let groups: Set<String>?
            switch entry["groups"] {
            case nil, .some(.null):
                groups = []
            case .some(.string("*")):
                groups = nil
            case .some(let value):
                guard let list = value.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                    throw FileError(description: "tokens[\(index)]: 'groups' must be a list of names or \"*\"")
                }
                groups = Set(list.compactMap(\.stringValue))
            }
            grants.append(TokenGrant(token: token, name: name, groups: groups))
        }
        return grants
    }
}
