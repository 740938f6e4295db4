import RemoteModalAction
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
        let binding = CompositeDisposable()
        binding.insert(
            Observable.combineLatest(action.enabled, action.executing) { ($0, $1) }
                .subscribe(onNext: { [states] enabled, busy in states.set(enabled: enabled, busy: busy) }))
        // Strong captures: the control (through its taps subject) owns the action for as long
        // as the binding lives, and the action its state (above). The binding ends when it is
        // replaced or its session ends (`Session.end` disposes every control's binding), which
        // releases both.
        binding.insert(tap.subscribe(onNext: { _ = action.execute(inputTransform()) }))
        binding.insert(tapWhileDisabled.subscribe(onNext: { _ = action.execute(inputTransform()) }))
        self.binding.disposable = binding
        return binding
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
