extension ObservableType {
    /// Maps each element to a sequence, disposing the previous inner sequence.
    /// - Parameter selector: Builds the inner sequence.
    /// - Returns: The sequence of the latest inner sequence's elements.
    public func flatMapLatest<Inner: ObservableType>(
        _ selector: @escaping @Sendable (Element) throws -> Inner
    ) -> Observable<Inner.Element> {
        flatten(.latest) { try selector($0).asObservable() }
    }
}

extension ObservableType where Element: ObservableType {
    /// Mirrors the latest inner sequence, disposing the previous one (`switchLatest`).
    /// - Returns: The switched sequence.
    public func switchLatest() -> Observable<Element.Element> {
        flatten(.latest) { $0.asObservable() }
    }
}
