extension ObservableType {
    /// Emits the given elements before the sequence's own.
    /// - Parameter elements: The elements to emit first.
    /// - Returns: The prefixed sequence.
    public func startWith(_ elements: Element...) -> Observable<Element> {
        Observable.concat([Observable.from(elements), asObservable()])
    }
}
