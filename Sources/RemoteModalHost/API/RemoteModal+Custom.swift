import Foundation
import RemoteModalProtocol
import RemoteModalReactive

// A custom modal in RxModalCoordinator's four forms: `Single` (one result), `Maybe` (a
// result or none), `Completable` (done or failed) and `Observable` (several results).
// Whatever the form, the client answers once with one `result`; the form says how that
// value is read.

extension RemoteModal {
    /// Presents a custom modal to clients that advertise `custom:NAME`.
    /// - Parameters:
    ///   - modal: The custom kind.
    ///   - payload: What the client receives.
    ///   - presenter: Where to present.
    ///   - timeout: Dismiss with `timeout` after this long.
    /// - Returns: The decoded result. A result that does not decode gets `error`
    ///   `bad_message` and the modal stays pending.
    public static func custom<Modal: CustomModal>(
        _ modal: Modal.Type, payload: Modal.Payload, presenter: Presenter = .current, timeout: Duration? = nil
    ) -> Single<Modal.Result> {
        presentCustom(modal, payload: payload, presenter: presenter, timeout: timeout) { value in
            try JSONDecoder().decode(Modal.Result.self, from: Data(value.jsonText.utf8))
        }
    }

    /// Presents a custom modal whose answer may carry no result: a `null` result value
    /// completes the ``/RemoteModalReactive/Maybe`` empty; anything else must decode as `Modal.Result`.
    /// - Parameters:
    ///   - modal: The custom kind.
    ///   - payload: What the client receives.
    ///   - presenter: Where to present.
    ///   - timeout: Dismiss with `timeout` after this long.
    /// - Returns: The decoded result, or empty for `null`.
    public static func customMaybe<Modal: CustomModal>(
        _ modal: Modal.Type, payload: Modal.Payload, presenter: Presenter = .current, timeout: Duration? = nil
    ) -> Maybe<Modal.Result> {
        presentCustom(modal, payload: payload, presenter: presenter, timeout: timeout) { value -> Modal.Result? in
            if value == .null { return nil }
            return try JSONDecoder().decode(Modal.Result.self, from: Data(value.jsonText.utf8))
        }
        .asObservable().compactMap { $0 }.asMaybe()
    }

    /// Presents a custom modal that only reports that it is done: any result value
    /// completes (it is not decoded); a `failure` fails.
    /// - Parameters:
    ///   - modal: The custom kind.
    ///   - payload: What the client receives.
    ///   - presenter: Where to present.
    ///   - timeout: Dismiss with `timeout` after this long.
    /// - Returns: The completable.
    public static func customCompletable<Modal: CustomModal>(
        _ modal: Modal.Type, payload: Modal.Payload, presenter: Presenter = .current, timeout: Duration? = nil
    ) -> Completable {
        presentCustom(modal, payload: payload, presenter: presenter, timeout: timeout) { _ in true }.asCompletable()
    }

    /// Presents a custom modal whose answer carries several results: the result value must
    /// be a JSON array, each entry decoding as `Modal.Result`; they are emitted in order,
    /// then the sequence completes.
    /// - Parameters:
    ///   - modal: The custom kind.
    ///   - payload: What the client receives.
    ///   - presenter: Where to present.
    ///   - timeout: Dismiss with `timeout` after this long.
    /// - Returns: The results.
    public static func customObservable<Modal: CustomModal>(
        _ modal: Modal.Type, payload: Modal.Payload, presenter: Presenter = .current, timeout: Duration? = nil
    ) -> Observable<Modal.Result> {
        presentCustom(modal, payload: payload, presenter: presenter, timeout: timeout) { value in
            try JSONDecoder().decode([Modal.Result].self, from: Data(value.jsonText.utf8))
        }
        .asObservable().flatMap { Observable.from($0) }
    }

    /// Presents the modal and reads the client's result value with `decode`; a value that
    /// does not decode gets `error` `bad_message` and the modal stays pending.
    private static func presentCustom<Modal: CustomModal, Output: Sendable>(
        _ modal: Modal.Type, payload: Modal.Payload, presenter: Presenter, timeout: Duration?,
        decode: @escaping @Sendable (JSONValue) throws -> Output
    ) -> Single<Output> {
        Single.deferred {
            let encoded = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
            let json = try JSONParser().parse(encoded)
            let description = ModalDescription.custom(name: Modal.name, payload: json)
            let read: @Sendable (ModalAnswer) throws -> Output = { answer in
                guard case .custom(let value) = answer else { throw RemoteModalError.failed("unexpected answer") }
                return try decode(value)
            }
            return Single.create { report in
                presenter.present(
                    description, rules: [], timeout: timeout,
                    callbacks: PresentationCallbacks(
                        answered: { accepted in report(Result { try read(accepted.answer) }) },
                        failed: { report(.failure($0)) },
                        check: { answer in
                            do {
                                _ = try read(answer)
                                return nil
                            } catch {
                                return "the result does not decode as \(Output.self): \(error)"
                            }
                        }))
            }
        }
    }
}
