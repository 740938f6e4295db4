import RemoteModalAction
import RemoteModalLocking
import RemoteModalProtocol
import RemoteModalReactive

extension Control {
    /// Binds the control to an action: `enabled` and `busy` follow the action, each tap
    /// executes it (a tap while disabled is recorded by the action as `notEnabled`).
    ///
    /// The control holds the action strongly, as RxCocoa's `rx.action` does, so an action
    /// created inline here keeps working. Binding again, removing the control, or the end
    /// of its session disposes the binding and releases the action.
    /// - Parameter action: The action.
    /// - Returns: A disposable that ends the binding.
    @discardableResult
    public func bind<Element: Sendable>(to action: Action<Void, Element>) -> any Disposable {
        bind(to: action, input: ())
    }

    /// Binds the control to an action that takes an input: each tap executes it with
    /// `input`, so several controls can share one action, each with its own input.
    /// - Parameters:
    ///   - action: The action (held strongly until the binding ends).
    ///   - input: What a tap of this control executes the action with.
    /// - Returns: A disposable that ends the binding.
    @discardableResult
    public func bind<Input: Sendable, Element: Sendable>(to action: Action<Input, Element>, input: Input)
        -> any Disposable
    {
        bind(to: action, inputTransform: { input })
    }

    /// Binds the control to an action whose input is computed at each tap.
    /// - Parameters:
    ///   - action: The action (held strongly until the binding ends).
    ///   - inputTransform: Builds the input for one tap, on the host executor.
    /// - Returns: A disposable that ends the binding.
    @discardableResult
    public func bind<Input: Sendable, Element: Sendable>(
        to action: Action<Input, Element>, inputTransform: @escaping @Sendable () -> Input
    ) -> any Disposable {
        // The control calls the binding at each tap (no subscription to its tap subjects,
        // which are then never made). The binding holds the action strongly, as the control
        // holds the binding, for as long as it lives: until it is replaced or disposed, or its
        // session ends (`Session.end` ends every control's binding), which releases both.
        let binding = ActionBinding(action: action, states: states, inputTransform: inputTransform)
        replaceBinding(binding, handler: binding)
        return binding
    }
}

extension Control {
    /// Binds the control to an action that is made only when the control is first tapped,
    /// so that a session nobody touches holds its controls and not their actions (the
    /// demo's six actions were most of an idle session's memory, docs/benchmarks.md).
    ///
    /// Until that tap the control shows what an action with the default `enabledIf` shows:
    /// enabled, not busy, without the action existing. The first tap makes the action, binds
    /// the control's `enabled` and `busy` to it from then on (as `bind(to:)`) and executes
    /// it; later taps execute the same action. A tap while the control is disabled is
    /// recorded by the action as `notEnabled` once it exists, and ignored before.
    ///
    /// For an action whose `enabledIf` may be false from the start, make it at once with
    /// `bind(to:)`: the control could not tell that state before the action exists.
    /// - Parameter makeAction: Makes the action, once, on the host executor at the first
    ///   tap; the binding holds it until the binding ends (a new binding, the control's
    ///   removal or the end of its session).
    /// - Returns: A disposable that ends the binding.
    @discardableResult
    public func bind<Element: Sendable>(lazily makeAction: @escaping @Sendable () -> Action<Void, Element>)
        -> any Disposable
    {
        states.set(enabled: true, busy: false)
        let binding = ActionBinding(makeAction: makeAction, states: states, inputTransform: {})
        replaceBinding(binding, handler: binding)
        return binding
    }
}

/// A control's binding to an action: executes it at each tap, and drives the control's
/// `enabled` and `busy` from the action's from the moment it holds one (at once, or at the
/// first tap when it makes the action itself). Disposing it releases the action.
final class ActionBinding<Input: Sendable, Element: Sendable>: ControlTapHandler, Disposable, Sendable {
    struct State {
        var action: Action<Input, Element>?
        var makeAction: (@Sendable () -> Action<Input, Element>)?
        var subscription: (any Disposable)?
        var disposed = false
    }

    let states: ControlStates
    /// Runs the action with the tap's input. NB: a closure made in `init`, which is
    /// specialized where the flow binds its action (its types known there): `tapped` is
    /// reached through `ControlTapHandler`, a protocol call on a generic class that is never
    /// specialized, and everything it called directly (the action's execution, its subjects)
    /// ran as generic code, looking up type metadata at run time (5% of the host's time per
    /// demo cycle, issue 31).
    let run: @Sendable (Action<Input, Element>) -> Void
    let state: Locked<State>

    init(action: Action<Input, Element>, states: ControlStates, inputTransform: @escaping @Sendable () -> Input) {
        self.states = states
        run = { action in _ = action.execute(inputTransform()) }
        state = Locked(State(action: action))
        attach(action)
    }

    init(
        makeAction: @escaping @Sendable () -> Action<Input, Element>, states: ControlStates,
        inputTransform: @escaping @Sendable () -> Input
    ) {
        self.states = states
        run = { action in _ = action.execute(inputTransform()) }
        state = Locked(State(makeAction: makeAction))
    }

    /// The control's states follow the action's from now on.
    private func attach(_ action: Action<Input, Element>) {
        let states = self.states
        let subscription = Observable.combineLatest(action.enabled, action.executing) { ($0, $1) }
            .subscribe(onNext: { enabled, busy in states.set(enabled: enabled, busy: busy) })
        let keep = state.withLock { state -> Bool in
            guard !state.disposed else { return false }
            state.subscription = subscription
            return true
        }
        if !keep { subscription.dispose() }
    }

    func tapped(enabled: Bool) {
        let (existing, make) = state.withLock { state in
            state.disposed ? (nil, nil) : (state.action, state.makeAction)
        }
        if let existing {
            run(existing)
            return
        }
        // Not made yet: a tap while disabled is ignored (nothing to record it), an enabled
        // one makes it. Taps arrive one at a time on the host executor.
        guard enabled, let make else { return }
        let action = make()
        let kept = state.withLock { state -> Bool in
            guard !state.disposed else { return false }
            state.action = action
            state.makeAction = nil
            return true
        }
        guard kept else { return }
        attach(action)
        run(action)
    }

    func dispose() {
        let (subscription, action) = state.withLock { state -> ((any Disposable)?, Action<Input, Element>?) in
            state.disposed = true
            state.makeAction = nil
            defer {
                state.subscription = nil
                state.action = nil
            }
            return (state.subscription, state.action)
        }
        subscription?.dispose()
        // Released outside the lock: the action's deinit may dispose its work.
        _ = action
    }
}

extension DialogAction {
    /// A dialog action bound to an ``/RemoteModalAction/Action``: enabled while the action is, and choosing it
    /// executes the action with the text field values and emits its elements.
    /// - Parameters:
    ///   - title: The title.
    ///   - style: The style.
    ///   - action: The action.
    /// - Returns: The dialog action.
    public static func bound(title: String, style: ActionStyle = .default, to action: Action<[String], Element>)
        -> DialogAction
    {
        DialogAction(
            title: title, style: style, isPreferred: false, output: .sequence { action.execute($0.textFields) },
            rule: .observable(action.enabled))
    }
}
