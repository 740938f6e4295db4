import RemoteModalReactive

/// Virtual time on a ``TestScheduler``, in ticks.
public typealias TestTime = Int

/// A value recorded at a virtual time, as RxTest writes `.next(210, "a")`.
public struct Recorded<Value: Sendable>: Sendable {
    /// When it happened.
    public let time: TestTime
    /// What happened.
    public let value: Value

    /// Records a value at a time.
    /// - Parameters:
    ///   - time: The virtual time.
    ///   - value: The value.
    public init(time: TestTime, value: Value) {
        self.time = time
        self.value = value
    }
}

extension Recorded: Equatable where Value: Equatable {}

extension Recorded: CustomDebugStringConvertible {
    /// `value @ time`.
    public var debugDescription: String { "\(value) @ \(time)" }
}

extension Recorded {
    /// A `next` event at a time.
    /// - Parameters:
    ///   - time: The virtual time.
    ///   - element: The element.
    /// - Returns: The recorded event.
    public static func next<T: Sendable>(_ time: TestTime, _ element: T) -> Recorded<Event<T>>
    where Value == Event<T> {
        Recorded(time: time, value: .next(element))
    }

    /// A `completed` event at a time.
    /// - Parameters:
    ///   - time: The virtual time.
    ///   - type: The element type, when inference needs it.
    /// - Returns: The recorded event.
    public static func completed<T: Sendable>(_ time: TestTime, _ type: T.Type = T.self) -> Recorded<Event<T>>
    where Value == Event<T> {
        Recorded(time: time, value: .completed)
    }

    /// An `error` event at a time.
    /// - Parameters:
    ///   - time: The virtual time.
    ///   - error: The error.
    ///   - type: The element type, when inference needs it.
    /// - Returns: The recorded event.
    public static func error<T: Sendable>(_ time: TestTime, _ error: any Error, _ type: T.Type = T.self)
        -> Recorded<Event<T>>
    where Value == Event<T> {
        Recorded(time: time, value: .error(error))
    }
}

/// When a test observable was subscribed and unsubscribed (`Int.max`: still subscribed).
public struct Subscription: Equatable, Sendable, CustomDebugStringConvertible {
    /// Subscription time.
    public let subscribe: TestTime
    /// Disposal time, or `Int.max` while subscribed.
    public let unsubscribe: TestTime

    /// A subscription that was disposed.
    /// - Parameters:
    ///   - subscribe: Subscription time.
    ///   - unsubscribe: Disposal time.
    public init(_ subscribe: TestTime, _ unsubscribe: TestTime = .max) {
        self.subscribe = subscribe
        self.unsubscribe = unsubscribe
    }

    /// `(subscribe, unsubscribe)`.
    public var debugDescription: String {
        unsubscribe == .max ? "(\(subscribe), ∞)" : "(\(subscribe), \(unsubscribe))"
    }
}

/// A plain error for tests, equal by name.
public struct TestError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The error's name.
    public let name: String

    /// Creates an error.
    /// - Parameter name: A name that tells errors apart.
    public init(_ name: String = "test error") {
        self.name = name
    }

    /// The name.
    public var description: String { name }
}
