import RemoteModalLocking
import Synchronization

/// How long a shared sequence's subject lives.
public enum SubjectLifetimeScope: Sendable {
    /// The connection and its replay buffer end when the last subscriber leaves or the
    /// source terminates; the next subscriber starts a fresh connection.
    case whileConnected
    /// One subject for the whole life of the shared sequence: late subscribers get the
    /// replay buffer (and the terminal event, once the source ended).
    case forever
}

/// The reference-counted connection behind `share(replay:scope:)`.
private final class ShareConnection<Element: Sendable>: Sendable {
    private struct State {
        var subject: SubjectCore<Element>?
        var connection: SingleAssignmentDisposable?
        var generation: UInt64 = 0
        var subscribers = 0
    }

    private let source: Observable<Element>
    private let replay: Int
    private let scope: SubjectLifetimeScope
    private let state = Locked(State())

    init(source: Observable<Element>, replay: Int, scope: SubjectLifetimeScope) {
        self.source = source
        self.replay = replay
        self.scope = scope
    }

    private func makeSubject() -> SubjectCore<Element> {
        SubjectCore(memory: replay > 0 ? .buffer(limit: replay) : .none)
    }

    func subscribe(_ observer: AnyObserver<Element>) -> any Disposable {
        let (subject, connect, generation): (SubjectCore<Element>, SingleAssignmentDisposable?, UInt64) =
            state.withLock { state in
                let subject = state.subject ?? makeSubject()
                state.subject = subject
                state.subscribers += 1
                if state.connection == nil, subject.stopEvent == nil {
                    let connection = SingleAssignmentDisposable()
                    state.connection = connection
                    return (subject, connection, state.generation)
                }
                return (subject, nil, state.generation)
            }
        let subscription = subject.subscribe(observer)
        if let connect {
            connect.setDisposable(
                source.subscribe(
                    AnyObserver { [self] event in
                        if event.isStopEvent, scope == .whileConnected { reset(generation) }
                        subject.on(event)
                    }))
        }
        return Disposables.create { [self] in
            subscription.dispose()
            release()
        }
    }

    /// Forgets a terminated connection so the next subscriber reconnects.
    private func reset(_ generation: UInt64) {
        state.withLock { state in
            guard state.generation == generation else { return }
            state.generation += 1
            state.subject = nil
            state.connection = nil
        }
    }

    private func release() {
        let connection: SingleAssignmentDisposable? = state.withLock { state in
            state.subscribers -= 1
            guard state.subscribers == 0 else { return nil }
            defer {
                state.connection = nil
                if scope == .whileConnected {
                    state.subject = nil
                    state.generation += 1
                }
            }
            return state.connection
        }
        connection?.dispose()
    }
}

extension ObservableType {
    /// Shares one subscription to the source among all subscribers, replaying the last
    /// `replay` elements to newcomers.
    /// - Parameters:
    ///   - replay: How many elements to replay (0: none).
    ///   - scope: Whether the replay buffer survives the connection.
    /// - Returns: The shared sequence.
    public func share(replay: Int = 0, scope: SubjectLifetimeScope = .whileConnected) -> Observable<Element> {
        let connection = ShareConnection(source: asObservable(), replay: replay, scope: scope)
        return Observable { observer in connection.subscribe(observer) }
    }
}
