extension Single {
    /// Ties a resource to the single: created on subscribe, disposed when it ends.
    /// - Parameters:
    ///   - resourceFactory: Creates the resource.
    ///   - singleFactory: Builds the single that uses the resource.
    /// - Returns: The single.
    public static func using<Resource: Disposable>(
        _ resourceFactory: @escaping @Sendable () throws -> Resource,
        singleFactory: @escaping @Sendable (Resource) throws -> Single<Element>
    ) -> Single<Element> {
        Single(unchecked: .using(resourceFactory) { try singleFactory($0).asObservable() })
    }
}

extension Maybe {
    /// Builds a fresh maybe for each subscription.
    /// - Parameter factory: The builder; a thrown error fails the subscription.
    /// - Returns: The maybe.
    public static func deferred(_ factory: @escaping @Sendable () throws -> Maybe<Element>) -> Maybe<Element> {
        Maybe(unchecked: .deferred { try factory().asObservable() })
    }

    /// Ties a resource to the maybe: created on subscribe, disposed when it ends.
    /// - Parameters:
    ///   - resourceFactory: Creates the resource.
    ///   - maybeFactory: Builds the maybe that uses the resource.
    /// - Returns: The maybe.
    public static func using<Resource: Disposable>(
        _ resourceFactory: @escaping @Sendable () throws -> Resource,
        maybeFactory: @escaping @Sendable (Resource) throws -> Maybe<Element>
    ) -> Maybe<Element> {
        Maybe(unchecked: .using(resourceFactory) { try maybeFactory($0).asObservable() })
    }

    /// Continues with another maybe built from the value; no value: completes empty.
    /// - Parameter selector: Builds the next maybe.
    /// - Returns: The chained maybe.
    public func flatMap<Result: Sendable>(
        _ selector: @escaping @Sendable (Element) throws -> Maybe<Result>
    ) -> Maybe<Result> {
        Maybe<Result>(unchecked: asObservable().flatMap { try selector($0).asObservable() })
    }
}

extension Completable {
    /// Builds a fresh completable for each subscription.
    /// - Parameter factory: The builder; a thrown error fails the subscription.
    /// - Returns: The completable.
    public static func deferred(_ factory: @escaping @Sendable () throws -> Completable) -> Completable {
        Completable(unchecked: .deferred { try factory().asObservable() })
    }

    /// Ties a resource to the completable: created on subscribe, disposed when it ends.
    /// - Parameters:
    ///   - resourceFactory: Creates the resource.
    ///   - completableFactory: Builds the completable that uses the resource.
    /// - Returns: The completable.
    public static func using<Resource: Disposable>(
        _ resourceFactory: @escaping @Sendable () throws -> Resource,
        completableFactory: @escaping @Sendable (Resource) throws -> Completable
    ) -> Completable {
        Completable(unchecked: .using(resourceFactory) { try completableFactory($0).asObservable() })
    }
}
