import Foundation
import RemoteModalClient
import RemoteModalProtocol

/// The kiosk's words: titles, hints, the connection, sizes. What the person reads and the
/// client core does not say.
extension KioskModel {
    /// The connection state and what to say about it.
    /// - Parameters:
    ///   - state: The client core's state.
    ///   - address: The host's address.
    ///   - everConnected: Whether a welcome came before (lost vs never reached).
    /// - Returns: The header's word and a line for the person, if any.
    static func words(for state: ConnectionState, address: String, everConnected: Bool) -> (Connection, String?) {
        switch state {
        case .connecting: return (.connecting, "Connecting to \(address)...")
        case .connected: return (.connected, nil)
        case .closed: return (.reconnecting, "Closed.")
        case .reconnecting(let attempt, let retryIn, let why):
            let lead = everConnected ? "Lost the host at \(address)" : "Cannot reach the host at \(address)"
            // Due (the attempt is under way, up to the welcome's 10 s): said so, not a countdown
            // stuck at "1 s".
            guard retryIn > 0 else {
                return (.reconnecting, "\(lead): \(reason(why)). Trying again now (attempt \(attempt))...")
            }
            let seconds = max(1, Int(retryIn.rounded(.up)))
            return (.reconnecting, "\(lead): \(reason(why)). Next try in \(seconds) s (attempt \(attempt)).")
        case .stopped(.unauthorized):
            return (
                .unauthorized,
                "The host refused this kiosk's token (none was given, or a wrong one): ask the host's operator "
                    + "for a valid one and start the kiosk with --token. R tries again."
            )
        case .stopped(let why):
            return (.refused, "The host at \(address) refused this kiosk: \(reason(why)). R tries again.")
        }
    }

    /// Why a connection ended, in words.
    static func reason(_ why: Disconnection) -> String {
        switch why {
        case .failed(.refused): "nothing answers there (connection refused)"
        case .failed(.reset): "the network dropped the connection"
        case .failed(.tls(let message)): "the secure connection failed (\(clean(message)))"
        case .failed(.http(let status)): "the host answered HTTP \(status)"
        case .failed(.upgradeRefused): "the host turned the connection down (it may be full)"
        case .failed(.other(let message)): linkWords(message)
        case .closed(1006, _): "the connection dropped"
        case .closed(let code, let reason): "closed (\(code)\(reason.isEmpty ? "" : ": \(clean(reason))"))"
        case .hostLeft: "the host is restarting"
        case .busy(let reason): "the host is busy\(reason.isEmpty ? "" : " (\(clean(reason)))")"
        case .unauthorized(let message): "not authorized\(message.map { " (\(clean($0)))" } ?? "")"
        case .helloRefused(let error): clean(error.message)
        case .noWelcome: "the host is not answering (no welcome in 10 s)"
        case .noReply: "the host is not answering (no reply in 10 s)"
        case .silent(let seconds): "the host is not answering (nothing heard for \(seconds) s)"
        }
    }

    /// What the WebSocket library said when an attempt failed, in a passer-by's words (its
    /// own, "read failed", are jargon): what went wrong, never how the library saw it.
    /// - Parameter message: The library's words.
    /// - Returns: The reason.
    static func linkWords(_ message: String) -> String {
        let lower = message.lowercased()
        let said: [(clues: [String], words: String)] = [
            (["read failed", "write failed"], "the connection closed before the host answered"),
            (["getaddrinfo", "dns", "nxdomain", "resolve"], "this address's host name is not known"),
            (["waiting for server", "timeout", "timed out"], "the host did not answer in time"),
            (["hs:", "upgrade", "accept"], "something answered there, but not a remote-modal host"),
            (["malformed url"], "the address is not a ws:// or wss:// address"),
            (["link stopped"], "the kiosk is stopping"),
        ]
        return said.first { entry in entry.clues.contains { lower.contains($0) } }?.words
            ?? "the connection could not be made"
    }

    /// Host text made safe for one line of a terminal.
    static func clean(_ text: String) -> String { PrintableText.clean(text) }

    static func isPicker(_ modal: ModalDescription) -> Bool {
        switch modal {
        case .photoPicker, .mediaPicker: true
        default: false
        }
    }

    static func title(of modal: ModalDescription) -> String {
        switch modal {
        case .alert(let text, _, _, _), .actionSheet(let text, _, _, _): text ?? "Question"
        case .mailComposer: "New mail"
        case .messageComposer: "New message"
        case .webAuthentication: "Sign in with your provider"
        case .photoPicker: "Choose photos"
        case .mediaPicker: "Choose media"
        case .custom(let name, _): "Custom: \(name)"
        }
    }

    /// A number of seconds in words: "2 minutes", "90 s", "1 minute".
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole >= 60, whole % 60 == 0 { return whole == 60 ? "1 minute" : "\(whole / 60) minutes" }
        return "\(whole) s"
    }

    /// A composer's fields as "To: ann@example.com · Body: ...", when someone changed them.
    static func unsentText(of open: OpenModal) -> String? {
        switch open.modal {
        case .mailComposer, .messageComposer:
            guard open.fields.map(\.text) != open.initialTexts else { return nil }
            return open.fields.filter { !$0.text.isEmpty }.map { "\($0.label): \($0.text)" }.joined(
                separator: " \u{00B7} ")
        default:
            return nil
        }
    }

    /// Whether an address may be drawn and shown to open: web addresses only (never
    /// `javascript:`, `file:`, `data:`).
    static func isWebAddress(_ url: String) -> Bool {
        let lower = url.lowercased()
        guard (lower.hasPrefix("https://") || lower.hasPrefix("http://")), !url.contains(where: \.isWhitespace)
        else { return false }
        // No user name before the host: `https://bank.example@evil.example/` reads as one
        // host and opens another.
        let authority = lower.drop { $0 != "/" }.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return !authority.contains("@")
    }

    /// The kiosk's view of a presented form: its fields with labels, hints and the picker's paths.
    static func open(_ form: ModalForm) -> OpenModal {
        var fields = form.fields.map {
            Field(
                key: $0.key, label: clean($0.label), text: $0.text, secret: $0.secure, multiline: $0.multiline,
                caret: $0.text.count)
        }
        var open = OpenModal(form: form, fields: [])
        switch form.modal {
        case .alert(_, let message, let specs, _):
            open.note = message
            for (index, spec) in specs.enumerated() where index < fields.count { fields[index].hint = hint(for: spec) }
        case .actionSheet(_, let message, _, _):
            open.note = message
        case .mailComposer(_, _, _, _, let body, let isHTML, let options):
            if isHTML, let index = fields.firstIndex(where: { $0.key == .body }) {
                fields[index].text = KioskHTML.readableText(body)
                fields[index].caret = fields[index].text.count
                fields[index].hint = "HTML shown as text"
            }
            if let index = fields.firstIndex(where: { $0.key == .attachments }) {
                fields[index].hint = "delete a name to leave it out"
                open.note =
                    "Attached: "
                    + options.attachments.map { "\(clean($0.name)) (\(format($0.size)))" }.joined(separator: ", ")
            }
        case .messageComposer: break
        case .webAuthentication(let url, let callbackURL, let scheme, let options):
            if isWebAddress(url) {
                // The host's short link to the same page, when it sent one: a QR code that
                // fits 80x24, an address a person can type.
                open.url = options.shortURL.flatMap { isWebAddress($0) ? $0 : nil } ?? url
            } else {
                open.refusedURL = url
            }
            open.note =
                callbackURL != nil
                ? "Open this address on a phone or a computer and sign in; this closes by itself."
                : "Open this address, sign in, then paste the \(scheme ?? "callback") address below."
            if open.url == nil {
                open.note = "This kiosk does not show this sign-in: its address is not a web address. Cancel it."
            }
        case .photoPicker(let limit, let filter, let maxBytes, let prompt):
            let count = limit == 0 ? "Any number of files" : limit == 1 ? "One file" : "Up to \(limit) files"
            open.note = [
                prompt, accepted(filter, photos: true) + ".",
                "\(count), \(format(maxBytes)) in all. Paths separated by commas.",
            ].compactMap { $0 }.joined(separator: "\n")
            fields = [Field(key: nil, label: "Files", text: "", secret: false)]
        case .mediaPicker(let types, let multiple, let maxBytes, let prompt):
            open.note = [
                prompt, accepted(types, photos: false) + ".",
                "\(multiple ? "Any number of files" : "One file"), \(format(maxBytes)) in all.",
            ].compactMap { $0 }.joined(separator: "\n")
            fields = [Field(key: nil, label: "Files", text: "", secret: false)]
        case .custom:
            open.note = "This kiosk cannot show this."
        }
        open.fields = fields
        open.initialTexts = fields.map(\.text)
        return open
    }

    /// What a picker accepts, in words ("Images only", "Audio or video").
    static func accepted(_ types: [String], photos: Bool) -> String {
        let known = Set(types.map { $0.lowercased() })
        let audio = ["audio", "music", "podcast", "audiobook", "anyaudio", "any"].contains { known.contains($0) }
        let video =
            ["video", "videos", "movie", "tvshow", "videopodcast", "musicvideo", "homevideo", "anyvideo", "any"]
            .contains { known.contains($0) }
        let image = ["image", "images", "livephotos"].contains { known.contains($0) }
        switch (photos, image, video, audio) {
        case (true, true, false, _): return "Images only"
        case (true, false, true, _): return "Videos only"
        case (true, _, _, _): return "Images or videos"
        case (false, _, false, true): return "Audio only"
        case (false, _, true, false): return "Video only"
        default: return "Audio or video"
        }
    }

    /// What a text field's keyboard and content type say about it, for a terminal.
    static func hint(for field: TextFieldSpec) -> String? {
        var parts: [String] = []
        switch field.contentType {
        case "one-time-code": parts.append("one-time code")
        case "username": parts.append("user name")
        case "email": parts.append("e-mail address")
        case "tel": parts.append("phone number")
        case "new-password": parts.append("new password")
        case "current-password": parts.append("password")
        case "url": parts.append("web address")
        case .some(let other) where !other.isEmpty: parts.append(clean(other))
        default: break
        }
        switch field.keyboard?.rawValue {
        case "numeric": parts.append("digits")
        case "decimal": parts.append("a number")
        case "phone" where !parts.contains("phone number"): parts.append("phone number")
        case "email" where !parts.contains("e-mail address"): parts.append("e-mail address")
        case "url" where !parts.contains("web address"): parts.append("web address")
        default: break
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// Bytes as people read them: "820 B", "9.4 MB".
    /// - Parameter bytes: The count.
    /// - Returns: The words.
    public static func format(_ bytes: Int) -> String {
        let units = ["kB", "MB", "GB", "TB"]
        guard bytes >= 1_000 else { return "\(bytes) B" }
        var value = Double(bytes) / 1_000
        var unit = 0
        while value >= 999.95, unit < units.count - 1 {
            value /= 1_000
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }

    /// "1 file", "3 files".
    static func files(_ count: Int) -> String { count == 1 ? "1 file" : "\(count) files" }
}
