extension ObservableType {
    /// Pairs each element with an object held weakly; when the object is gone as an
    /// element arrives, the sequence completes instead.
    /// - Parameters:
    ///   - object: The object to pass along without retaining it.
    ///   - resultSelector: Builds the output from the object and the element.
    /// - Returns: The combined sequence.
    public func withUnretained<Object: AnyObject & Sendable, Result: Sendable>(
        _ object: Object, resultSelector: @escaping @Sendable (Object, Element) throws -> Result
    ) -> Observable<Result> {
        let source = asObservable()
        let reference = WeakReference(object)
        return Observable { observer in
            source.subscribe(
                AnyObserver { event in
                    switch event {
                    case .next(let element):
                        guard let object = reference.value else { return observer.onCompleted() }
                        do { observer.onNext(try resultSelector(object, element)) } catch { observer.onError(error) }
                    case .error(let error): observer.onError(error)
                    case .completed: observer.onCompleted()
                    }
                })
        }
    }

    /// Pairs each element with an object held weakly; when the object is gone as an
    /// element arrives, the sequence completes instead.
    /// - Parameter object: The object to pass along without retaining it.
    /// - Returns: The sequence of `(object, element)` pairs.
    public func withUnretained<Object: AnyObject & Sendable>(_ object: Object) -> Observable<(Object, Element)> {
        withUnretained(object) { ($0, $1) }
    }
}

/// Holds an object without retaining it.
private final class WeakReference<Object: AnyObject & Sendable>: Sendable {
    weak let value: Object?

    init(_ value: Object) {
        self.value = value
    }
}
