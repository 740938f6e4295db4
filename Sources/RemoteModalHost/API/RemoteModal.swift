import RemoteModalProtocol
import RemoteModalReactive

/// Remote modals as sequences: presented on subscribe, dismissed on dispose.
public enum RemoteModal {
    /// Presents an alert and emits what the chosen action's observable emits.
    /// - Parameters:
    ///   - type: The element type, when inference needs it.
    ///   - presenter: Where to present.
    ///   - title: The title.
    ///   - message: The message.
    ///   - textFields: The text fields.
    ///   - actions: The actions (at least one).
    ///   - timeout: Dismiss with `timeout` and fail with ``RemoteModalError/timeout`` after this long.
    /// - Returns: The alert's sequence. Fails with `unsupported` when the client cannot show
    ///   alerts and `missingPresenter` when the presenter resolves to no session.
    public static func alert<Element: Sendable>(
        _ type: Element.Type = Element.self, presenter: Presenter = .current, title: String?, message: String? = nil,
        textFields: [DialogTextField] = [], actions: [DialogAction<Element>], timeout: Duration? = nil
    ) -> Observable<Element> {
        let description = ModalDescription.alert(
            title: title, message: message, textFields: textFields.map { $0.spec }, actions: actions.map { $0.spec })
        return dialog(presenter, description, actions, timeout)
    }

    /// Presents an action sheet and emits what the chosen action's observable emits.
    /// - Parameters:
    ///   - type: The element type, when inference needs it.
    ///   - presenter: Where to present.
    ///   - source: The id of the control the sheet is anchored to.
    ///   - title: The title.
    ///   - message: The message.
    ///   - actions: The actions (at least one).
    ///   - timeout: Dismiss with `timeout` after this long.
    /// - Returns: The sheet's sequence.
    public static func actionSheet<Element: Sendable>(
        _ type: Element.Type = Element.self, presenter: Presenter = .current, source: String? = nil, title: String?,
        message: String? = nil, actions: [DialogAction<Element>], timeout: Duration? = nil
    ) -> Observable<Element> {
        let description = ModalDescription.actionSheet(
            title: title, message: message, source: source, actions: actions.map { $0.spec })
        return dialog(presenter, description, actions, timeout)
    }

    private static func dialog<Element: Sendable>(
        _ presenter: Presenter, _ description: ModalDescription, _ actions: [DialogAction<Element>],
        _ timeout: Duration?
    ) -> Observable<Element> {
        guard !actions.isEmpty else {
            return .error(RemoteModalError.failed("an alert or action sheet needs at least one action"))
        }
        // Only an action whose choice runs a sequence needs a subscription after the answer.
        let subscribes = actions.contains {
            if case .sequence = $0.output { true } else { false }
        }
        return Observable.create { observer in
            let chosen = subscribes ? SingleAssignmentDisposable() : nil
            let presentation = presenter.present(
                description, rules: actions.map { $0.rule }, timeout: timeout,
                callbacks: PresentationCallbacks(
                    answered: { accepted in
                        guard case .action(let index, let texts) = accepted.answer, actions.indices.contains(index)
                        else {
                            observer.onError(RemoteModalError.failed("unexpected answer"))
                            return
                        }
                        let context = DialogContext(textFields: texts, session: accepted.session)
                        switch actions[index].output {
                        case .value(let make):
                            do {
                                if let value = try make(context) { observer.onNext(value) }
                                observer.onCompleted()
                            } catch {
                                observer.onError(error)
                            }
                        case .sequence(let make):
                            chosen?.setDisposable(make(context).subscribe(observer))
                        }
                    },
                    failed: { observer.onError($0) }))
            guard let chosen else { return presentation }
            return Disposables.create(presentation, chosen)
        }
    }

    /// Presents any modal description and emits the accepted answer with the session
    /// that gave it: the building block of every kind, and of custom modals.
    /// - Parameters:
    ///   - description: What to show.
    ///   - presenter: Where to show it.
    ///   - timeout: Dismiss with `timeout` after this long.
    /// - Returns: A single of the answer.
    public static func present(
        _ description: ModalDescription, presenter: Presenter = .current, timeout: Duration? = nil
    )
        -> Single<(answer: ModalAnswer, session: Session)>
    {
        Single.create { report in
            presenter.present(
                description, rules: description.actions?.map { _ in nil } ?? [], timeout: timeout,
                callbacks: PresentationCallbacks(
                    answered: { accepted in report(.success((accepted.answer, accepted.session))) },
                    failed: { report(.failure($0)) }))
        }
    }
}
