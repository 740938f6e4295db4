extension ObservableType where Element: ObservableType {
    /// Merges the inner sequences as they arrive.
    /// - Parameter maxConcurrent: How many may run at once (`nil`: no limit); the rest wait.
    /// - Returns: The merged sequence.
    public func merge(maxConcurrent: Int? = nil) -> Observable<Element.Element> {
        flatten(.all(maxConcurrent: maxConcurrent)) { $0.asObservable() }
    }
}

extension Observable {
    /// Merges several sequences: elements are forwarded as they come, one at a time.
    /// - Parameter sources: The sequences.
    /// - Returns: A sequence that completes when all of them have.
    public static func merge(_ sources: [Observable<Element>]) -> Observable<Element> {
        Observable<Observable<Element>>.from(sources).merge()
    }

    /// Merges several sequences.
    /// - Parameter sources: The sequences.
    /// - Returns: A sequence that completes when all of them have.
    public static func merge(_ sources: Observable<Element>...) -> Observable<Element> {
        merge(sources)
    }
}
