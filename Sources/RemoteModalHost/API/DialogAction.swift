import RemoteModalProtocol
import RemoteModalReactive

/// What the person's choice carries: the alert's text field values and the session
/// that answered (for a group presentation, the first one).
public struct DialogContext: Sendable {
    /// The text field values, in order.
    public let textFields: [String]
    /// The session that answered.
    public let session: Session
}

/// One action of a remote alert or action sheet, and what choosing it emits.
///
/// The modal's stream emits what the chosen action's observable emits and completes
/// with it: `mapTo` emits one value, `flatMapTo` a whole sequence, `throw` an error, and
/// the empty form completes without a value.
public struct DialogAction<Element: Sendable>: Sendable {
    /// The title.
    public let title: String
    /// The style.
    public let style: ActionStyle
    /// Whether it is the default button.
    public let isPreferred: Bool
    let output: DialogOutput<Element>
    let rule: EnabledRule?
    /// The rule in words (wire `explanation`), shown by clients while the action is disabled.
    public let explanation: String?

    /// Creates an action from its parts.
    /// - Parameters:
    ///   - title: The title.
    ///   - style: The style.
    ///   - output: Builds what choosing it emits.
    public init(title: String, style: ActionStyle, output: @escaping @Sendable (DialogContext) -> Observable<Element>) {
        self.init(title: title, style: style, isPreferred: false, output: .sequence(output), rule: nil)
    }

    init(title: String, style: ActionStyle, output: DialogOutput<Element>) {
        self.init(title: title, style: style, isPreferred: false, output: output, rule: nil)
    }

    init(
        title: String, style: ActionStyle, isPreferred: Bool, output: DialogOutput<Element>, rule: EnabledRule?,
        explanation: String? = nil
    ) {
        self.title = title
        self.style = style
        self.isPreferred = isPreferred
        self.output = output
        self.rule = rule
        self.explanation = explanation
    }

    /// The same action as the default button (the client focuses it; Enter picks it).
    /// - Parameter preferred: Whether it is preferred.
    /// - Returns: The action.
    public func preferred(_ preferred: Bool = true) -> DialogAction {
        DialogAction(
            title: title, style: style, isPreferred: preferred, output: output, rule: rule, explanation: explanation)
    }

    /// Enables the action only while a rule over the live text field values holds; the
    /// client gets an `update` whenever the state changes as the person types.
    /// - Parameter rule: The rule.
    /// - Returns: The action.
    public func enabledIf(_ rule: @escaping @Sendable ([String]) -> Bool) -> DialogAction {
        DialogAction(
            title: title, style: style, isPreferred: isPreferred, output: output, rule: .textFields(rule),
            explanation: explanation)
    }

    /// Enables the action only while a rule over the live text field values holds, and
    /// says the rule: clients show `explanation` while the action is disabled.
    /// - Parameters:
    ///   - explanation: The rule in the person's words ("Enter an e-mail address with an @ and a password").
    ///   - rule: The rule.
    /// - Returns: The action.
    public func enabledIf(explanation: String, _ rule: @escaping @Sendable ([String]) -> Bool) -> DialogAction {
        DialogAction(
            title: title, style: style, isPreferred: isPreferred, output: output, rule: .textFields(rule),
            explanation: explanation)
    }

    /// Enables the action while a host-side sequence says so.
    /// - Parameter enabled: The enabled state over time.
    /// - Returns: The action.
    public func enabledIf(_ enabled: Observable<Bool>) -> DialogAction {
        DialogAction(
            title: title, style: style, isPreferred: isPreferred, output: output, rule: .observable(enabled),
            explanation: explanation)
    }

    /// Enables the action while a host-side sequence says so, and says when in words
    /// (shown by clients while the action is disabled).
    /// - Parameters:
    ///   - enabled: The enabled state over time.
    ///   - explanation: When it is enabled, in the person's words.
    /// - Returns: The action.
    public func enabledIf(_ enabled: Observable<Bool>, explanation: String) -> DialogAction {
        DialogAction(
            title: title, style: style, isPreferred: isPreferred, output: output, rule: .observable(enabled),
            explanation: explanation)
    }

    /// The wire description. Rules are evaluated by the host before the modal is sent,
    /// with the alert's initial text field values.
    var spec: ActionSpec {
        ActionSpec(title: title, style: style, enabled: true, preferred: isPreferred, explanation: explanation)
    }
}

/// What choosing an action emits. Most actions emit at most one value at once (`mapTo`,
/// `map`, `throw`, none): a function of the context, called without subscribing anything,
/// where an observable per answer (`just` and a subscription) cost a chain of its own.
enum DialogOutput<Element: Sendable>: Sendable {
    /// One value (`nil`: none), or a thrown error, then completion.
    case value(@Sendable (DialogContext) throws -> Element?)
    /// A whole sequence, subscribed when the action is chosen.
    case sequence(@Sendable (DialogContext) -> Observable<Element>)
}

extension DialogAction {
    /// An ordinary action that completes without a value.
    /// - Parameter title: The title.
    /// - Returns: The action.
    public static func `default`(title: String) -> DialogAction {
        DialogAction(title: title, style: .default, output: .value { _ in nil })
    }

    /// An ordinary action that emits a fixed value.
    /// - Parameters:
    ///   - title: The title.
    ///   - value: The value.
    /// - Returns: The action.
    public static func `default`(title: String, mapTo value: Element) -> DialogAction {
        DialogAction(title: title, style: .default, output: .value { _ in value })
    }

    /// An ordinary action that emits a value built from the text fields.
    /// - Parameters:
    ///   - title: The title.
    ///   - transform: Builds the value; a thrown error fails the stream.
    /// - Returns: The action.
    public static func `default`(title: String, map transform: @escaping @Sendable ([String]) throws -> Element)
        -> DialogAction
    {
        DialogAction(title: title, style: .default, output: .value { try transform($0.textFields) })
    }

    /// An ordinary action that emits a value built from the whole context
    /// (text fields and the answering session).
    /// - Parameters:
    ///   - title: The title.
    ///   - transform: Builds the value; a thrown error fails the stream.
    /// - Returns: The action.
    public static func `default`(
        title: String, mapContext transform: @escaping @Sendable (DialogContext) throws -> Element
    ) -> DialogAction {
        DialogAction(title: title, style: .default, output: .value { try transform($0) })
    }

    /// An ordinary action that emits a whole sequence.
    /// - Parameters:
    ///   - title: The title.
    ///   - sequence: What to emit.
    /// - Returns: The action.
    public static func `default`(title: String, flatMapTo sequence: Observable<Element>) -> DialogAction {
        DialogAction(title: title, style: .default, output: .sequence { _ in sequence })
    }

    /// An ordinary action that emits a sequence built from the text fields.
    /// - Parameters:
    ///   - title: The title.
    ///   - selector: Builds the sequence.
    /// - Returns: The action.
    public static func `default`(
        title: String, flatMap selector: @escaping @Sendable ([String]) -> Observable<Element>
    ) -> DialogAction {
        DialogAction(title: title, style: .default, output: .sequence { selector($0.textFields) })
    }

    /// An ordinary action that fails the stream with an error.
    /// - Parameters:
    ///   - title: The title.
    ///   - error: The error.
    /// - Returns: The action.
    public static func `default`(title: String, throw error: any Error) -> DialogAction {
        DialogAction(title: title, style: .default, output: .value { _ in throw error })
    }

    /// A cancel action that completes without a value.
    /// - Parameter title: The title.
    /// - Returns: The action.
    public static func cancel(title: String) -> DialogAction {
        DialogAction(title: title, style: .cancel, output: .value { _ in nil })
    }

    /// A cancel action that emits a fixed value.
    /// - Parameters:
    ///   - title: The title.
    ///   - value: The value.
    /// - Returns: The action.
    public static func cancel(title: String, mapTo value: Element) -> DialogAction {
        DialogAction(title: title, style: .cancel, output: .value { _ in value })
    }

    /// A cancel action that emits a value built from the text fields.
    /// - Parameters:
    ///   - title: The title.
    ///   - transform: Builds the value; a thrown error fails the stream.
    /// - Returns: The action.
    public static func cancel(title: String, map transform: @escaping @Sendable ([String]) throws -> Element)
        -> DialogAction
    {
        DialogAction(title: title, style: .cancel, output: .value { try transform($0.textFields) })
    }

    /// A cancel action that emits a value built from the whole context
    /// (text fields and the answering session).
    /// - Parameters:
    ///   - title: The title.
    ///   - transform: Builds the value; a thrown error fails the stream.
    /// - Returns: The action.
    public static func cancel(
        title: String, mapContext transform: @escaping @Sendable (DialogContext) throws -> Element
    ) -> DialogAction {
        DialogAction(title: title, style: .cancel, output: .value { try transform($0) })
    }

    /// A cancel action that emits a whole sequence.
    /// - Parameters:
    ///   - title: The title.
    ///   - sequence: What to emit.
    /// - Returns: The action.
    public static func cancel(title: String, flatMapTo sequence: Observable<Element>) -> DialogAction {
        DialogAction(title: title, style: .cancel, output: .sequence { _ in sequence })
    }

    /// A cancel action that emits a sequence built from the text fields.
    /// - Parameters:
    ///   - title: The title.
    ///   - selector: Builds the sequence.
    /// - Returns: The action.
    public static func cancel(
        title: String, flatMap selector: @escaping @Sendable ([String]) -> Observable<Element>
    ) -> DialogAction {
        DialogAction(title: title, style: .cancel, output: .sequence { selector($0.textFields) })
    }

    /// A cancel action that fails the stream with an error.
    /// - Parameters:
    ///   - title: The title.
    ///   - error: The error.
    /// - Returns: The action.
    public static func cancel(title: String, throw error: any Error) -> DialogAction {
        DialogAction(title: title, style: .cancel, output: .value { _ in throw error })
    }

    /// A destructive action that completes without a value.
    /// - Parameter title: The title.
    /// - Returns: The action.
    public static func destructive(title: String) -> DialogAction {
        DialogAction(title: title, style: .destructive, output: .value { _ in nil })
    }

    /// A destructive action that emits a fixed value.
    /// - Parameters:
    ///   - title: The title.
    ///   - value: The value.
    /// - Returns: The action.
    public static func destructive(title: String, mapTo value: Element) -> DialogAction {
        DialogAction(title: title, style: .destructive, output: .value { _ in value })
    }

    /// A destructive action that emits a value built from the text fields.
    /// - Parameters:
    ///   - title: The title.
    ///   - transform: Builds the value; a thrown error fails the stream.
    /// - Returns: The action.
    public static func destructive(title: String, map transform: @escaping @Sendable ([String]) throws -> Element)
        -> DialogAction
    {
        DialogAction(title: title, style: .destructive, output: .value { try transform($0.textFields) })
    }

    /// A destructive action that emits a value built from the whole context
    /// (text fields and the answering session).
    /// - Parameters:
    ///   - title: The title.
    ///   - transform: Builds the value; a thrown error fails the stream.
    /// - Returns: The action.
    public static func destructive(
        title: String, mapContext transform: @escaping @Sendable (DialogContext) throws -> Element
    ) -> DialogAction {
        DialogAction(title: title, style: .destructive, output: .value { try transform($0) })
    }

    /// A destructive action that emits a whole sequence.
    /// - Parameters:
    ///   - title: The title.
    ///   - sequence: What to emit.
    /// - Returns: The action.
    public static func destructive(title: String, flatMapTo sequence: Observable<Element>) -> DialogAction {
        DialogAction(title: title, style: .destructive, output: .sequence { _ in sequence })
    }

    /// A destructive action that emits a sequence built from the text fields.
    /// - Parameters:
    ///   - title: The title.
    ///   - selector: Builds the sequence.
    /// - Returns: The action.
    public static func destructive(
        title: String, flatMap selector: @escaping @Sendable ([String]) -> Observable<Element>
    ) -> DialogAction {
        DialogAction(title: title, style: .destructive, output: .sequence { selector($0.textFields) })
    }

    /// A destructive action that fails the stream with an error.
    /// - Parameters:
    ///   - title: The title.
    ///   - error: The error.
    /// - Returns: The action.
    public static func destructive(title: String, throw error: any Error) -> DialogAction {
        DialogAction(title: title, style: .destructive, output: .value { _ in throw error })
    }

}
