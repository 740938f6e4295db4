extension ObservableType {
    /// Maps each element to a sequence and merges all of them as they run.
    /// - Parameter selector: Builds the inner sequence; a thrown error ends the output.
    /// - Returns: The merged sequence.
    public func flatMap<Inner: ObservableType>(
        _ selector: @escaping @Sendable (Element) throws -> Inner
    ) -> Observable<Inner.Element> {
        flatten(.all(maxConcurrent: nil)) { try selector($0).asObservable() }
    }
}
