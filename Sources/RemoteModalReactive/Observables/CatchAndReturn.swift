extension ObservableType {
    /// Emits a fallback element and completes when the sequence fails.
    /// - Parameter element: The fallback.
    /// - Returns: The recovered sequence.
    public func catchAndReturn(_ element: Element) -> Observable<Element> {
        self.catch { _ in .just(element) }
    }
}
