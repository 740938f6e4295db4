import Foundation

/// An unattended kiosk's script: steps run in order, each within its timeout.
///
/// ```json
/// [{"tap": "approve"},
///  {"expect": "Approve request?", "fill": [], "pick": "Approve", "timeout": 20},
///  {"status": "Approved by", "timeout": 10}]
/// ```
public struct KioskScript: Decodable, Sendable, Equatable {
    /// One step.
    public struct Step: Decodable, Sendable, Equatable {
        /// Tap this control (once it is there and enabled).
        public var tap: String?
        /// Wait for a modal with this title.
        public var expect: String?
        /// Text for its fields, in order.
        public var fill: [String]?
        /// The title of the choice to pick.
        public var pick: String?
        /// Wait for a notice containing this text.
        public var status: String?
        /// Just wait this many seconds (for example until the other kiosks of a group joined).
        public var wait: Double?
        /// Seconds to wait for the step (default 30).
        public var timeout: Double?
    }

    /// The steps.
    public var steps: [Step]

    /// Decodes a script from a JSON array of steps.
    /// - Parameter decoder: The decoder.
    /// - Throws: When the JSON is not a list of steps.
    public init(from decoder: any Decoder) throws {
        steps = try decoder.singleValueContainer().decode([Step].self)
    }

    /// Loads a script file.
    /// - Parameter path: The file.
    /// - Returns: The script.
    /// - Throws: When it cannot be read or decoded.
    public static func load(_ path: String) throws -> KioskScript {
        try JSONDecoder().decode(KioskScript.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

/// Follows a script against the model: decides the next key presses or messages. Pure.
public struct ScriptRunner: Sendable {
    /// The script.
    public let script: KioskScript
    /// The step being waited for.
    public private(set) var index = 0
    /// The serial of the newest notice when the current step began.
    private var noticesAtStart = 0
    /// When the current `wait` step ends.
    private var waitUntil: Date?

    /// Starts at the first step.
    /// - Parameter script: The script.
    public init(script: KioskScript) {
        self.script = script
    }

    /// Whether every step is done.
    public var finished: Bool { index >= script.steps.count }

    /// The current step's timeout (a `wait` step gets its own length on top).
    public var timeout: Double {
        guard !finished else { return 0 }
        let step = script.steps[index]
        return (step.timeout ?? 30) + (step.wait ?? 0)
    }

    /// Looks at the model and returns what to do now (possibly nothing), advancing the
    /// step when it is satisfied.
    /// - Parameters:
    ///   - model: The kiosk's state.
    ///   - now: The current time (for `wait` steps).
    /// - Returns: The effects, and a log line per completed step.
    public mutating func advance(_ model: inout KioskModel, now: Date = Date()) -> (
        effects: [KioskEffect], log: [String]
    ) {
        var effects: [KioskEffect] = []
        var log: [String] = []
        while !finished {
            let step = script.steps[index]
            if let seconds = step.wait {
                let until = waitUntil ?? now.addingTimeInterval(seconds)
                waitUntil = until
                guard now >= until else { break }
                waitUntil = nil
                log.append("{\"event\":\"waited\",\"seconds\":\(seconds)}")
            } else if let control = step.tap {
                guard model.current == nil, let item = model.controls.first(where: { $0.id == control }), item.enabled
                else { break }
                effects.append(.send(.event(control: item.id)))
                log.append("{\"event\":\"tap\",\"control\":\(quote(control))}")
            } else if let title = step.expect {
                guard let open = model.current, !open.answered, open.modal.title == title else { break }
                for (offset, text) in (step.fill ?? []).enumerated() where offset < open.fields.count {
                    for _ in open.fields[offset].text { effects += model.press(.backspace) }
                    for character in text { effects += model.press(.character(character)) }
                    effects += model.press(.enter)
                }
                while (model.current?.focus ?? 0) < (model.current?.fields.count ?? 0) { effects += model.press(.tab) }
                if let pick = step.pick, let choice = open.choices.firstIndex(where: { $0.title == pick }) {
                    guard model.current?.choices[choice].enabled == true else { break }
                    effects += model.press(.character(Character("\(choice + 1)")))
                }
                log.append("{\"event\":\"answered\",\"title\":\(quote(title)),\"pick\":\(quote(step.pick ?? ""))}")
            } else if let text = step.status {
                let recent = model.notices.filter { $0.serial > noticesAtStart }
                guard
                    let notice = recent.first(where: { $0.text.contains(text) })
                        ?? model.notices.last(where: { $0.text.contains(text) })
                else { break }
                log.append("{\"event\":\"status\",\"text\":\(quote(notice.text))}")
            }
            index += 1
            noticesAtStart = model.lastNoticeSerial
        }
        return (effects, log)
    }

    private func quote(_ text: String) -> String {
        let data = try? JSONEncoder().encode(text)
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}
