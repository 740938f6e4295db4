import RemoteModalCoordinator
import RemoteModalReactive

extension Session {
    /// Starts a session's root coordinator and keeps it alive until its flow ends (a value
    /// and completion, an error, or the returned disposable disposed) or the session ends
    /// (expiry, host shutdown): the session is its owner, as the `AppDelegate` is upstream.
    ///
    /// So upstream ReactiveCoordinator's pattern works as written: a root coordinator created
    /// per session whose `Action`s capture `[unowned self]` is never read after it is gone,
    /// because the actions' controls end with the session, and the session releases the
    /// coordinator only after that.
    ///
    /// ```swift
    /// host.sessions.subscribe(onNext: { session in
    ///     session.coordinate(to: AppCoordinator(session: session))
    /// })
    /// ```
    ///
    /// The flow runs with this session as `Presenter.current`. An error that ends it is
    /// logged (its text, not the session id); handle errors inside the flow to keep it.
    /// - Parameter coordinator: The root coordinator.
    /// - Returns: A disposable that ends the flow early and releases the coordinator.
    @discardableResult
    public func coordinate<Result: Sendable>(to coordinator: ReactiveCoordinator<Result>) -> any Disposable {
        let key = coordinator.identifier
        let logger = core.logger
        let description = String(describing: type(of: coordinator))
        roots.withLock { $0[key] = coordinator }
        let subscription = Presenter.withCurrentSession(self) {
            // Ended with the session by its dispose bag (below), which `end()` disposes right
            // after `ended` fires: no subscription to `ended` per root (issue 31's memory per
            // idle session).
            coordinator.start()
                .do(onDispose: { [weak self] in
                    // Released when the flow ends in any way; the last reference may be this one.
                    _ = self?.roots.withLock { $0.removeValue(forKey: key) }
                })
                .subscribe(onError: { error in logger.warning("root coordinator \(description) failed: \(error)") })
        }
        subscription.disposed(by: disposeBag)
        return subscription
    }

    /// How many root coordinators this session keeps now (`coordinate(to:)`).
    public var rootCoordinatorCount: Int { roots.withLock { $0.count } }
}
