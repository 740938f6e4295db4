import RemoteModalLocking

/// A sequence that shares one subscription to its source among its observers, made only
/// when ``connect()`` is called: the result of ``publish()``, ``replay(_:)`` and ``multicast(_:)``.
///
/// Observers subscribe to the subject; ``connect()`` subscribes the subject to the source,
/// and disposing the connection unsubscribes it. Once the source has ended, the subject
/// keeps its terminal event, as in RxSwift.
public final class ConnectableObservable<Element: Sendable>: ObservableType {
    private let source: Observable<Element>
    private let subjectObserver: AnyObserver<Element>
    private let subjectObservable: Observable<Element>
    private let connection = Locked<SingleAssignmentDisposable?>(nil)

    /// Creates a connectable sequence over a subject.
    /// - Parameters:
    ///   - source: The sequence to share.
    ///   - subject: Receives the source's events and broadcasts them to observers.
    public init<Subject: ObservableType & ObserverType>(source: Observable<Element>, subject: Subject)
    where Subject.Element == Element {
        self.source = source
        self.subjectObserver = AnyObserver(subject)
        self.subjectObservable = subject.asObservable()
    }

    /// Subscribes an observer to the shared events (it receives nothing until connected).
    /// - Parameter observer: The observer.
    /// - Returns: A disposable that unsubscribes it.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        subjectObservable.subscribe(observer)
    }

    /// Subscribes the subject to the source, once: while connected, calling it again
    /// returns the same connection.
    /// - Returns: The connection; disposing it unsubscribes from the source and allows a
    ///   later ``connect()`` to subscribe again.
    @discardableResult
    public func connect() -> any Disposable {
        let (slot, isNew) = connection.withLock { current -> (SingleAssignmentDisposable, Bool) in
            if let current { return (current, false) }
            let slot = SingleAssignmentDisposable()
            current = slot
            return (slot, true)
        }
        guard isNew else { return slot }
        let subscription = source.subscribe(subjectObserver)
        slot.setDisposable(subscription)
        return Disposables.create { [self] in
            connection.withLock { current in
                if current === slot { current = nil }
            }
            slot.dispose()
        }
    }

    /// Connects on the first subscription and disconnects when the last observer leaves;
    /// a later subscriber connects again.
    /// - Returns: The reference-counted sequence.
    public func refCount() -> Observable<Element> {
        let counter = Locked<(count: Int, connection: (any Disposable)?)>((0, nil))
        return Observable { [self] observer in
            let subscription = subscribe(observer)
            let shouldConnect = counter.withLock { state -> Bool in
                state.count += 1
                return state.count == 1
            }
            if shouldConnect {
                let connection = connect()
                counter.withLock { $0.connection = connection }
            }
            return Disposables.create {
                subscription.dispose()
                let connection: (any Disposable)? = counter.withLock { state in
                    state.count -= 1
                    guard state.count == 0 else { return nil }
                    defer { state.connection = nil }
                    return state.connection
                }
                connection?.dispose()
            }
        }
    }
}

extension ObservableType {
    /// Shares the source through a subject, once connected.
    /// - Parameter subject: The subject that broadcasts the source's events.
    /// - Returns: The connectable sequence.
    public func multicast<Subject: ObservableType & ObserverType>(_ subject: Subject) -> ConnectableObservable<Element>
    where Subject.Element == Element {
        ConnectableObservable(source: asObservable(), subject: subject)
    }

    /// Shares the source through a ``PublishSubject``, once connected: observers receive
    /// the events that follow their subscription.
    /// - Returns: The connectable sequence.
    public func publish() -> ConnectableObservable<Element> {
        multicast(PublishSubject())
    }

    /// Shares the source through a ``ReplaySubject``, once connected: new observers first
    /// receive the last `bufferSize` elements.
    /// - Parameter bufferSize: How many elements to replay.
    /// - Returns: The connectable sequence.
    public func replay(_ bufferSize: Int) -> ConnectableObservable<Element> {
        multicast(ReplaySubject.create(bufferSize: bufferSize))
    }

    /// Shares the source through an unbounded ``ReplaySubject``, once connected.
    /// - Returns: The connectable sequence.
    public func replayAll() -> ConnectableObservable<Element> {
        multicast(ReplaySubject.createUnbound())
    }
}
