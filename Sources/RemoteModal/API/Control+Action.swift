import Action
import ModalProtocol
import Reactive

extension Control {
    /// Binds the control to an action: `enabled` and `busy` follow the action, each tap
    /// executes it (a tap while disabled is recorded by the action as `notEnabled`).
    /// Binding again disposes the previous binding.
    /// - Parameter action: The action.
    /// - Returns: A disposable that ends the binding.
    @discardableResult
    public func bind<Element: Sendable>(to action: Action<Void, Element>) -> any Disposable {
        let binding = CompositeDisposable()
        binding.insert(
            Observable.combineLatest(action.enabled, action.executing) { ($0, $1) }
                .subscribe(onNext: { [weak self] enabled, busy in self?.set(enabled: enabled, busy: busy) }))
        binding.insert(tap.subscribe(onNext: { [weak action] in _ = action?.execute() }))
        binding.insert(tapWhileDisabled.subscribe(onNext: { [weak action] in _ = action?.execute() }))
        self.binding.disposable = binding
        return binding
    }
}

extension DialogAction {
    /// A dialog action bound to an `Action`: enabled while the action is, and choosing it
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
            title: title, style: style, isPreferred: false, output: { action.execute($0.textFields) },
            rule: .observable(action.enabled))
    }
}
