import RemoteModalProtocol
import RemoteModalReactive

// RxModal's `flatMapTo` accepts any sequence: a `Single` (a composer, a picker), a `Maybe`,
// a `Completable`, and, for a `DialogAction<Void>`, a sequence of any element, erased to
// `Void` (RxModal's README example: an action sheet leading to the mail or the message
// composer, whose results differ).

extension DialogAction {
    /// RxModal's spelling of `action.preferred()`: the same action as the default button.
    /// - Parameter action: The action.
    /// - Returns: The action, preferred.
    public static func preferred(_ action: DialogAction) -> DialogAction {
        action.preferred(true)
    }

    static func erasing(_ style: ActionStyle, _ title: String, _ source: Observable<Element>) -> DialogAction {
        DialogAction(title: title, style: style, output: .sequence { _ in source })
    }

    /// An ordinary action that emits the value of a ``/RemoteModalReactive/Single`` (subscribed when chosen).
    /// - Parameters:
    ///   - title: The title.
    ///   - single: What to run when chosen.
    /// - Returns: The action.
    public static func `default`(title: String, flatMapTo single: Single<Element>) -> DialogAction {
        erasing(.default, title, single.asObservable())
    }

    /// An ordinary action that emits the value of a ``/RemoteModalReactive/Maybe``, if any.
    /// - Parameters:
    ///   - title: The title.
    ///   - maybe: What to run when chosen.
    /// - Returns: The action.
    public static func `default`(title: String, flatMapTo maybe: Maybe<Element>) -> DialogAction {
        erasing(.default, title, maybe.asObservable())
    }

    /// An ordinary action that runs a ``/RemoteModalReactive/Completable``; the dialog's sequence completes with it
    /// (or fails with its error) without a value.
    /// - Parameters:
    ///   - title: The title.
    ///   - completable: What to run when chosen.
    /// - Returns: The action.
    public static func `default`(title: String, flatMapTo completable: Completable) -> DialogAction {
        erasing(.default, title, completable.andThen(Observable<Element>.empty()))
    }

    /// A cancel action that emits the value of a ``/RemoteModalReactive/Single`` (subscribed when chosen).
    /// - Parameters:
    ///   - title: The title.
    ///   - single: What to run when chosen.
    /// - Returns: The action.
    public static func cancel(title: String, flatMapTo single: Single<Element>) -> DialogAction {
        erasing(.cancel, title, single.asObservable())
    }

    /// A cancel action that emits the value of a ``/RemoteModalReactive/Maybe``, if any.
    /// - Parameters:
    ///   - title: The title.
    ///   - maybe: What to run when chosen.
    /// - Returns: The action.
    public static func cancel(title: String, flatMapTo maybe: Maybe<Element>) -> DialogAction {
        erasing(.cancel, title, maybe.asObservable())
    }

    /// A cancel action that runs a ``/RemoteModalReactive/Completable``; the dialog's sequence completes with it
    /// (or fails with its error) without a value.
    /// - Parameters:
    ///   - title: The title.
    ///   - completable: What to run when chosen.
    /// - Returns: The action.
    public static func cancel(title: String, flatMapTo completable: Completable) -> DialogAction {
        erasing(.cancel, title, completable.andThen(Observable<Element>.empty()))
    }

    /// A destructive action that emits the value of a ``/RemoteModalReactive/Single`` (subscribed when chosen).
    /// - Parameters:
    ///   - title: The title.
    ///   - single: What to run when chosen.
    /// - Returns: The action.
    public static func destructive(title: String, flatMapTo single: Single<Element>) -> DialogAction {
        erasing(.destructive, title, single.asObservable())
    }

    /// A destructive action that emits the value of a ``/RemoteModalReactive/Maybe``, if any.
    /// - Parameters:
    ///   - title: The title.
    ///   - maybe: What to run when chosen.
    /// - Returns: The action.
    public static func destructive(title: String, flatMapTo maybe: Maybe<Element>) -> DialogAction {
        erasing(.destructive, title, maybe.asObservable())
    }

    /// A destructive action that runs a ``/RemoteModalReactive/Completable``; the dialog's sequence completes with it
    /// (or fails with its error) without a value.
    /// - Parameters:
    ///   - title: The title.
    ///   - completable: What to run when chosen.
    /// - Returns: The action.
    public static func destructive(title: String, flatMapTo completable: Completable) -> DialogAction {
        erasing(.destructive, title, completable.andThen(Observable<Element>.empty()))
    }
}

extension DialogAction where Element == Void {
    /// An ordinary action that runs a sequence of any element and emits `()` for each of its
    /// elements (RxModal's Void-erasing `flatMapTo`).
    /// - Parameters:
    ///   - title: The title.
    ///   - sequence: What to run when chosen.
    /// - Returns: The action.
    @_disfavoredOverload
    public static func `default`<Other: Sendable>(title: String, flatMapTo sequence: Observable<Other>) -> DialogAction
    {
        erasing(.default, title, sequence.map { _ in () })
    }

    /// An ordinary action that runs a ``/RemoteModalReactive/Single`` of any value and emits `()` when it succeeds.
    /// - Parameters:
    ///   - title: The title.
    ///   - single: What to run when chosen.
    /// - Returns: The action.
    @_disfavoredOverload
    public static func `default`<Other: Sendable>(title: String, flatMapTo single: Single<Other>) -> DialogAction {
        erasing(.default, title, single.asObservable().map { _ in () })
    }

    /// An ordinary action that runs a ``/RemoteModalReactive/Maybe`` of any value and emits `()` if it has one.
    /// - Parameters:
    ///   - title: The title.
    ///   - maybe: What to run when chosen.
    /// - Returns: The action.
    @_disfavoredOverload
    public static func `default`<Other: Sendable>(title: String, flatMapTo maybe: Maybe<Other>) -> DialogAction {
        erasing(.default, title, maybe.asObservable().map { _ in () })
    }

    /// A cancel action that runs a sequence of any element and emits `()` for each of its
    /// elements (RxModal's Void-erasing `flatMapTo`).
    /// - Parameters:
    ///   - title: The title.
    ///   - sequence: What to run when chosen.
    /// - Returns: The action.
    @_disfavoredOverload
    public static func cancel<Other: Sendable>(title: String, flatMapTo sequence: Observable<Other>) -> DialogAction {
        erasing(.cancel, title, sequence.map { _ in () })
    }

    /// A cancel action that runs a ``/RemoteModalReactive/Single`` of any value and emits `()` when it succeeds.
    /// - Parameters:
    ///   - title: The title.
    ///   - single: What to run when chosen.
    /// - Returns: The action.
    @_disfavoredOverload
    public static func cancel<Other: Sendable>(title: String, flatMapTo single: Single<Other>) -> DialogAction {
        erasing(.cancel, title, single.asObservable().map { _ in () })
    }

    /// A cancel action that runs a ``/RemoteModalReactive/Maybe`` of any value and emits `()` if it has one.
    /// - Parameters:
    ///   - title: The title.
    ///   - maybe: What to run when chosen.
    /// - Returns: The action.
    @_disfavoredOverload
    public static func cancel<Other: Sendable>(title: String, flatMapTo maybe: Maybe<Other>) -> DialogAction {
        erasing(.cancel, title, maybe.asObservable().map { _ in () })
    }

    /// A destructive action that runs a sequence of any element and emits `()` for each of its
    /// elements (RxModal's Void-erasing `flatMapTo`).
    /// - Parameters:
    ///   - title: The title.
    ///   - sequence: What to run when chosen.
    /// - Returns: The action.
    @_disfavoredOverload
    public static func destructive<Other: Sendable>(title: String, flatMapTo sequence: Observable<Other>)
        -> DialogAction
    {
        erasing(.destructive, title, sequence.map { _ in () })
    }

    /// A destructive action that runs a ``/RemoteModalReactive/Single`` of any value and emits `()` when it succeeds.
    /// - Parameters:
    ///   - title: The title.
    ///   - single: What to run when chosen.
    /// - Returns: The action.
    @_disfavoredOverload
    public static func destructive<Other: Sendable>(title: String, flatMapTo single: Single<Other>) -> DialogAction {
        erasing(.destructive, title, single.asObservable().map { _ in () })
    }

    /// A destructive action that runs a ``/RemoteModalReactive/Maybe`` of any value and emits `()` if it has one.
    /// - Parameters:
    ///   - title: The title.
    ///   - maybe: What to run when chosen.
    /// - Returns: The action.
    @_disfavoredOverload
    public static func destructive<Other: Sendable>(title: String, flatMapTo maybe: Maybe<Other>) -> DialogAction {
        erasing(.destructive, title, maybe.asObservable().map { _ in () })
    }
}
