extension ObservableType {
    /// Emits elements while they satisfy the predicate, then completes and disposes the
    /// source.
    /// - Parameters:
    ///   - predicate: The condition to keep going; a thrown error ends the sequence with it.
    ///   - behavior: `.inclusive` also emits the first element that fails the predicate.
    /// - Returns: The shortened sequence.
    public func take(
        while predicate: @escaping @Sendable (Element) throws -> Bool, behavior: TakeBehavior = .exclusive
    ) -> Observable<Element> {
        take(until: { try !predicate($0) }, behavior: behavior)
    }
}
