import RemoteModalLocking
import Synchronization

/// Resumes a continuation exactly once, whichever of the result or the task's
/// cancellation comes first, and disposes the subscription on cancellation.
private final class OneShotResume<Element: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Element, any Error>?
        var pending: Result<Element, any Error>?
        var done = false
    }

    private let state = Locked(State())
    let subscription = SingleAssignmentDisposable()

    func install(_ continuation: CheckedContinuation<Element, any Error>) {
        let ready: Result<Element, any Error>? = state.withLock { state in
            if let pending = state.pending { return pending }
            state.continuation = continuation
            return nil
        }
        if let ready { continuation.resume(with: ready) }
    }

    func resume(_ result: Result<Element, any Error>) {
        let continuation: CheckedContinuation<Element, any Error>? = state.withLock { state in
            guard !state.done else { return nil }
            state.done = true
            guard let continuation = state.continuation else {
                state.pending = result
                return nil
            }
            state.continuation = nil
            return continuation
        }
        continuation?.resume(with: result)
    }
}

extension Single {
    /// Subscribes and waits for the value. Cancelling the task disposes the subscription
    /// (for a modal: dismisses it) and throws `CancellationError`.
    public var value: Element {
        get async throws {
            let box = OneShotResume<Element>()
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    box.install(continuation)
                    box.subscription.setDisposable(subscribe { box.resume($0) })
                }
            } onCancel: {
                box.subscription.dispose()
                box.resume(.failure(CancellationError()))
            }
        }
    }

    /// A single whose value is computed by an async function; disposing the
    /// subscription cancels the task.
    /// - Parameter operation: The work.
    /// - Returns: The single.
    public static func fromAsync(_ operation: @escaping @Sendable () async throws -> Element) -> Single<Element> {
        create { report in
            let task = Task {
                do {
                    report(.success(try await operation()))
                } catch {
                    report(.failure(error))
                }
            }
            return Disposables.create { task.cancel() }
        }
    }
}

extension Completable {
    /// Subscribes and waits for completion. Cancelling the task disposes the subscription.
    public var value: Void {
        get async throws {
            _ = try await asObservable().materialize().filter { $0.isStopEvent }.asSingle()
                .map { event -> Bool in
                    if case .error(let error) = event { throw error }
                    return true
                }
                .value
        }
    }
}
