extension ObservableType {
    /// Maps an element to a sequence and ignores further elements until that sequence
    /// completes (for example, taps while a dialog is already open).
    /// - Parameter selector: Builds the inner sequence.
    /// - Returns: The sequence of the inner elements.
    public func flatMapFirst<Inner: ObservableType>(
        _ selector: @escaping @Sendable (Element) throws -> Inner
    ) -> Observable<Inner.Element> {
        flatten(.first) { try selector($0).asObservable() }
    }
}
