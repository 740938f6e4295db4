extension ObservableType {
    /// Maps each element to a sequence and runs those sequences one after another, in
    /// order, queueing elements that arrive meanwhile.
    /// - Parameter selector: Builds the inner sequence.
    /// - Returns: The concatenated sequence.
    public func concatMap<Inner: ObservableType>(
        _ selector: @escaping @Sendable (Element) throws -> Inner
    ) -> Observable<Inner.Element> {
        flatten(.all(maxConcurrent: 1)) { try selector($0).asObservable() }
    }
}
