import RemoteModalReactive
import Synchronization

/// Single-flight work bound to something a person triggers (a button, a dialog action).
///
/// One execution at a time: `execute` while executing or while `enabledIf` is false fails
/// with ``ActionError/notEnabled`` without calling the work factory. Each execution's work
/// runs once and is shared by `elements`, `executing` and the stream `execute` returns.
/// ``cancel()`` ends the current execution (its stream completes).
public final class Action<Input: Sendable, Element: Sendable>: Sendable {
    /// Builds the work for one execution.
    public typealias WorkFactory = @Sendable (Input) throws -> Observable<Element>

    let core: ActionCore<Input, Element>

    /// Creates an action.
    /// - Parameters:
    ///   - enabledIf: Whether the action may run; until it emits, the action is disabled.
    ///   - workFactory: Builds the work for one execution.
    public init(enabledIf: Observable<Bool> = .just(true), workFactory: @escaping WorkFactory) {
        core = ActionCore(enabledIf: enabledIf, workFactory: workFactory)
    }

    // NB: the trait initializers are disfavored so that `{ .just(x) }` means an Observable;
    // a closure that returns a `Single`, `Maybe` or `Completable` value still picks its own.

    /// Creates an action whose work is a ``/RemoteModalReactive/Single``.
    /// - Parameters:
    ///   - enabledIf: Whether the action may run.
    ///   - workFactory: Builds the work.
    @_disfavoredOverload
    public convenience init(
        enabledIf: Observable<Bool> = .just(true), workFactory: @escaping @Sendable (Input) throws -> Single<Element>
    ) {
        self.init(enabledIf: enabledIf, workFactory: { try workFactory($0).asObservable() })
    }

    /// Creates an action whose work is a ``/RemoteModalReactive/Maybe``.
    /// - Parameters:
    ///   - enabledIf: Whether the action may run.
    ///   - workFactory: Builds the work.
    @_disfavoredOverload
    public convenience init(
        enabledIf: Observable<Bool> = .just(true), workFactory: @escaping @Sendable (Input) throws -> Maybe<Element>
    ) {
        self.init(enabledIf: enabledIf, workFactory: { try workFactory($0).asObservable() })
    }

    /// Runs the work for an input.
    /// - Parameter input: The input.
    /// - Returns: The execution's elements (replayed to late subscribers), or an error
    ///   ``ActionError/notEnabled`` / `.underlyingError`.
    @discardableResult
    public func execute(_ input: Input) -> Observable<Element> { core.execute(input) }

    /// Ends the current execution, if any: its work is disposed, its stream completes and
    /// ``executing`` becomes false.
    public func cancel() { core.cancel() }

    /// Executes for each element received.
    public var inputs: AnyObserver<Input> {
        let core = self.core
        return AnyObserver { event in
            if case .next(let input) = event { _ = core.execute(input) }
        }
    }

    /// Every element of every execution.
    public var elements: Observable<Element> { core.elements.asObservable() }

    /// `notEnabled` for refused executions, ``underlyingError`` for failed work.
    public var errors: Observable<ActionError> { core.errors.asObservable() }

    /// The errors of failed work.
    public var underlyingError: Observable<any Error> {
        core.errors.compactMap { error -> (any Error)? in
            if case .underlyingError(let underlying) = error { return underlying }
            return nil
        }
    }

    /// Whether an execution runs; starts with `false` and replays the current state.
    public var executing: Observable<Bool> { core.executing.asObservable().distinctUntilChanged() }

    /// Each execution's stream, as it starts.
    public var executionObservables: Observable<Observable<Element>> { core.executions.asObservable() }

    /// `enabledIf && !executing`, emitted once `enabledIf` has spoken, then on each change.
    public var enabled: Observable<Bool> {
        Observable.combineLatest(core.enabledIf.compactMap { $0 }, core.executing) { $0 && !$1 }
            .distinctUntilChanged()
    }
}

/// An action that takes no input and produces nothing but its completion: a button.
public typealias ButtonAction = Action<Void, Void>

/// Upstream's name for a button's action (`Action<Void, Void>`), kept so code written
/// against Action ports unchanged; the same type as ``ButtonAction``.
public typealias CocoaAction = Action<Void, Void>

/// An action whose work only completes or fails (upstream's `CompletableAction<Input>`).
public typealias CompletableAction<Input: Sendable> = Action<Input, Never>

extension Action where Element == Never {
    /// Creates an action whose work is a ``/RemoteModalReactive/Completable``.
    /// - Parameters:
    ///   - enabledIf: Whether the action may run.
    ///   - workFactory: Builds the work.
    @_disfavoredOverload
    public convenience init(
        enabledIf: Observable<Bool> = .just(true), workFactory: @escaping @Sendable (Input) throws -> Completable
    ) {
        self.init(enabledIf: enabledIf, workFactory: { try workFactory($0).asObservable() })
    }

    /// Emits once each time an execution completes successfully.
    public var completions: Observable<Void> {
        executionObservables.flatMap { execution in
            execution.materialize().compactMap { event -> Void? in
                if case .completed = event { return () }
                return nil
            }
        }
    }
}

extension Action where Input == Void {
    /// Runs the work.
    /// - Returns: The execution's elements.
    @discardableResult
    public func execute() -> Observable<Element> { execute(()) }
}
