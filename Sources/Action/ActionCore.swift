import Locking
import Reactive
import Synchronization

/// The state behind an `Action`. It holds no reference to the `Action` or to what the
/// action is bound to, so releasing the action releases everything.
final class ActionCore<Input: Sendable, Element: Sendable>: Sendable {
    private struct State {
        var running = false
        var generation: UInt64 = 0
    }

    let workFactory: Action<Input, Element>.WorkFactory
    let elements = PublishSubject<Element>()
    let errors = PublishSubject<ActionError>()
    let executing = BehaviorRelay(value: false)
    let executions = PublishSubject<Observable<Element>>()
    let enabledIf = BehaviorRelay<Bool?>(value: nil)
    private let state = Locked(State())
    private let current = SerialDisposable()
    private let enabledSubscription: any Disposable

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

    private let stateBox: StateBox

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
        executions.onNext(replay.asObservable())
        let work: Observable<Element>
        do {
            work = try workFactory(input)
        } catch {
            work = .error(error)
        }
        // Weak: the work's subscription is kept in `current`, so a strong capture would be
        // a cycle that keeps a released action alive.
        let finish: @Sendable () -> Void = { [weak self] in
            guard let self else { return }
            let wasCurrent = state.withLock { state -> Bool in
                guard state.generation == generation, state.running else { return false }
                state.running = false
                return true
            }
            if wasCurrent { executing.accept(false) }
        }
        let subscription = work.subscribe(
            onNext: { [elements] element in
                replay.onNext(element)
                elements.onNext(element)
            },
            onError: { [errors] error in
                errors.onNext(.underlyingError(error))
                finish()
                replay.onError(ActionError.underlyingError(error))
            },
            onCompleted: {
                finish()
                replay.onCompleted()
            },
            onDisposed: {
                finish()
                replay.onCompleted()
            })
        current.disposable = subscription
        return replay.asObservable()
    }

    func cancel() {
        current.disposable = nil
    }
}

/// The latest `enabledIf` value, shared with the subscription that updates it.
final class StateBox: Sendable {
    private let storage = Locked<Bool?>(nil)
    var value: Bool? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
