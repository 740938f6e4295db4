import RemoteModalLocking

/// A sequence of the elements that share one key, emitted by `groupBy`.
public struct GroupedObservable<Key: Hashable & Sendable, Element: Sendable>: ObservableType {
    /// The key shared by the group's elements.
    public let key: Key
    private let source: Observable<Element>

    /// Creates a group.
    /// - Parameters:
    ///   - key: The group's key.
    ///   - source: The group's elements.
    public init(key: Key, source: Observable<Element>) {
        self.key = key
        self.source = source
    }

    /// Subscribes an observer to the group's elements.
    /// - Parameter observer: The observer.
    /// - Returns: A disposable that unsubscribes it.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Element {
        source.subscribe(observer)
    }

    /// The group as an observable.
    /// - Returns: The observable.
    public func asObservable() -> Observable<Element> { source }
}

extension ObservableType {
    /// Splits the elements into groups by key: a group is emitted when its first element
    /// arrives, and receives that element and every later one with its key.
    ///
    /// Groups are hot: subscribe to a group when it is emitted. The source's completion
    /// or error ends every group, then the output. Disposing the output disposes the
    /// source, which ends the groups' elements too.
    /// - Parameter keySelector: Computes an element's key; a thrown error ends everything.
    /// - Returns: The sequence of groups.
    public func groupBy<Key: Hashable & Sendable>(
        keySelector: @escaping @Sendable (Element) throws -> Key
    ) -> Observable<GroupedObservable<Key, Element>> {
        let source = asObservable()
        return Observable { observer in
            // The groups in the order they opened, so they end in that order too.
            let groups = Locked<(byKey: [Key: PublishSubject<Element>], opened: [PublishSubject<Element>])>(([:], []))
            @Sendable func end(_ event: Event<Element>) {
                let all = groups.withLock { groups in
                    defer { groups = ([:], []) }
                    return groups.opened
                }
                for group in all { group.on(event) }
            }
            return source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next(let element):
                        let key: Key
                        do {
                            key = try keySelector(element)
                        } catch {
                            end(.error(error))
                            observer.onError(error)
                            return
                        }
                        let (group, isNew) = groups.withLock { groups in
                            if let group = groups.byKey[key] { return (group, false) }
                            let group = PublishSubject<Element>()
                            groups.byKey[key] = group
                            groups.opened.append(group)
                            return (group, true)
                        }
                        if isNew { observer.onNext(GroupedObservable(key: key, source: group.asObservable())) }
                        group.onNext(element)
                    case .error(let error):
                        end(event)
                        observer.onError(error)
                    case .completed:
                        end(event)
                        observer.onCompleted()
                    }
                })
        }
    }
}
