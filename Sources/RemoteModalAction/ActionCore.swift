import RemoteModalLocking
import RemoteModalReactive
import Synchronization

/// The state behind an `Action`. It holds no reference to the `Action` or to what the
/// action is bound to, so releasing the action releases everything.
///
/// NB: no `private` members here or in `ActionExecution`: cross-module optimization cannot
/// serialize a body that touches a private declaration, so every action's execution ran
/// the generic code (metadata lookups and witness calls for each event), not code
/// specialized for its types.
final class ActionCore<Input: Sendable, Element: Sendable>: Sendable {
    struct State {
        var running = false
        var generation: UInt64 = 0
    }

    let workFactory: Action<Input, Element>.WorkFactory
    let elements = PublishSubject<Element>()
    let errors = PublishSubject<ActionError>()
    let executing = BehaviorRelay(value: false)
    let executions = PublishSubject<Observable<Element>>()
    let enabledIf = BehaviorRelay<Bool?>(value: nil)
    let state = Locked(State())
    let current = SerialDisposable()
    let enabledSubscription: any Disposable

    init(enabledIf: Observable<Bool>, workFactory: @escaping Action<Input, Element>.WorkFactory) {
        self.workFactory = workFactory
        let relay = self.enabledIf
        let state = StateBox()
        enabledSubscription = enabledIf.subscribe(onNext: { value in
            state.value = value
            relay.accept(value)
        })
        self.stateBox = state
    }

    let stateBox: StateBox

    deinit {
        enabledSubscription.dispose()
        current.dispose()
    }

    func execute(_ input: Input) -> Observable<Element> {
        let enabled = stateBox.value
        let generation: UInt64? = state.withLock { state in
            guard enabled == true, !state.running else { return nil }
            state.running = true
            state.generation += 1
            return state.generation
        }
        guard let generation else {
            errors.onNext(.notEnabled)
            return .error(ActionError.notEnabled)
        }
        executing.accept(true)
        let replay = ReplaySubject<Element>.createUnbound()
        let replayed = replay.asObservable()
        executions.onNext(replayed)
        let work: Observable<Element>
        do {
            work = try workFactory(input)
        } catch {
            work = .error(error)
        }
        let execution = ActionExecution(core: self, generation: generation, replay: replay)
        // NB: a closure that calls `on` directly, not `execution` as the observer: through
        // the protocol witness, the call reached the generic `on` even from specialized code.
        current.disposable = Disposables.create(work.subscribe(AnyObserver { execution.on($0) }), execution)
        return replayed
    }

    /// Ends execution `generation` if it is still the running one: `executing` turns false.
    func finish(_ generation: UInt64) {
        let wasCurrent = state.withLock { state -> Bool in
            guard state.generation == generation, state.running else { return false }
            state.running = false
            return true
        }
        if wasCurrent { executing.accept(false) }
    }

    func cancel() {
        current.disposable = nil
    }
}

/// The latest `enabledIf` value, shared with the subscription that updates it.
final class StateBox: Sendable {
    let storage = Locked<Bool?>(nil)
    var value: Bool? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

/// One execution's observer of its work, and what ends it when the subscription is
/// disposed: forwards elements to the replay and to `elements`, failures to `errors`, and
/// marks the action idle when the work ends in any way. One object per execution, where
/// closures for each event and the disposal were six.
///
/// Weak `core`: the work's subscription is kept in the core's `current`, so a strong
/// reference would be a cycle that keeps a released action alive.
///
/// `@unchecked Sendable` invariant: every stored property is immutable (the weak
/// reference is only loaded, never assigned after `init`); the subjects are thread-safe.
final class ActionExecution<Input: Sendable, Element: Sendable>: ObserverType, Disposable, @unchecked Sendable {
    weak var core: ActionCore<Input, Element>?
    let generation: UInt64
    let replay: ReplaySubject<Element>
    let elements: PublishSubject<Element>
    let errors: PublishSubject<ActionError>

    init(core: ActionCore<Input, Element>, generation: UInt64, replay: ReplaySubject<Element>) {
        self.core = core
        self.generation = generation
        self.replay = replay
        elements = core.elements
        errors = core.errors
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            replay.onNext(element)
            elements.onNext(element)
        case .error(let error):
            errors.onNext(.underlyingError(error))
            core?.finish(generation)
            replay.onError(ActionError.underlyingError(error))
        case .completed:
            core?.finish(generation)
            replay.onCompleted()
        }
    }

    /// The subscription was disposed (cancelled, replaced or the action released): idle,
    /// and the replay completes (nothing if it already ended).
    func dispose() {
        core?.finish(generation)
        replay.onCompleted()
    }
}
