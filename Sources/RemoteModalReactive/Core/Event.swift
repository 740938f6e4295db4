/// One event of a sequence.
///
/// Every sequence follows the grammar `next* (error | completed)`: any number of
/// `next` events, then at most one terminal event, after which nothing more is delivered.
/// Operators and subjects in this module enforce the grammar; observers may rely on it.
public enum Event<Element: Sendable>: Sendable {
    /// The next element of the sequence.
    case next(Element)
    /// The sequence failed; terminal.
    case error(any Error)
    /// The sequence finished; terminal.
    case completed

    /// Whether the event ends the sequence (``error`` or ``completed``).
    public var isStopEvent: Bool {
        switch self {
        case .next: return false
        case .error, .completed: return true
        }
    }

    /// The element of a `next` event, or `nil`.
    public var element: Element? {
        if case .next(let value) = self { return value }
        return nil
    }

    /// The error of an ``error`` event, or `nil`.
    public var error: (any Error)? {
        if case .error(let error) = self { return error }
        return nil
    }

    /// Transforms the element of a `next` event, turning a thrown error into an `error` event.
    /// - Parameter transform: The function applied to the element.
    /// - Returns: The transformed event.
    public func map<Result: Sendable>(_ transform: (Element) throws -> Result) -> Event<Result> {
        switch self {
        case .next(let value):
            do { return .next(try transform(value)) } catch { return .error(error) }
        case .error(let error): return .error(error)
        case .completed: return .completed
        }
    }
}

extension Event: CustomDebugStringConvertible {
    /// A readable form such as `next(1)`, `error(boom)` or `completed`.
    public var debugDescription: String {
        switch self {
        case .next(let value): return "next(\(value))"
        case .error(let error): return "error(\(error))"
        case .completed: return "completed"
        }
    }
}

extension Event: Equatable where Element: Equatable {
    /// Events are equal when their kinds and elements are; errors compare by their
    /// reflected description (type and payload), which is what tests need.
    public static func == (lhs: Event, rhs: Event) -> Bool {
        switch (lhs, rhs) {
        case (.next(let l), .next(let r)): return l == r
        case (.error(let l), .error(let r)): return String(reflecting: l) == String(reflecting: r)
        case (.completed, .completed): return true
        default: return false
        }
    }
}
