extension Single {
    /// Waits for two singles and succeeds with both values; fails with the first error
    /// (disposing the other).
    /// - Parameters:
    ///   - a: The first single.
    ///   - b: The second single.
    ///   - resultSelector: Builds the result from both values.
    /// - Returns: The combined single.
    public static func zip<A: Sendable, B: Sendable>(
        _ a: Single<A>, _ b: Single<B>, resultSelector: @escaping @Sendable (A, B) throws -> Element
    ) -> Single<Element> {
        Single(unchecked: Observable.zip(a, b, resultSelector: resultSelector))
    }

    /// Waits for two singles and succeeds with both values as a tuple.
    /// - Parameters:
    ///   - a: The first single.
    ///   - b: The second single.
    /// - Returns: The combined single.
    public static func zip<A: Sendable, B: Sendable>(_ a: Single<A>, _ b: Single<B>) -> Single<Element>
    where Element == (A, B) {
        zip(a, b) { ($0, $1) }
    }

    /// Waits for three singles and succeeds with the three values as a tuple.
    /// - Parameters:
    ///   - a: The first single.
    ///   - b: The second single.
    ///   - c: The third single.
    /// - Returns: The combined single.
    public static func zip<A: Sendable, B: Sendable, C: Sendable>(
        _ a: Single<A>, _ b: Single<B>, _ c: Single<C>
    ) -> Single<Element> where Element == (A, B, C) {
        Single(unchecked: Observable.zip(a, b, c))
    }

    /// Waits for every single and succeeds with their values, in order (at once with
    /// `[]` for no singles).
    /// - Parameter singles: The singles.
    /// - Returns: The combined single.
    public static func zip<E: Sendable>(_ singles: [Single<E>]) -> Single<Element> where Element == [E] {
        guard !singles.isEmpty else { return .just([]) }
        return Single(unchecked: Observable.zip(singles.map { $0.asObservable() }))
    }
}
