extension Observable {
    /// A sequence that never emits and never ends.
    /// - Returns: The sequence.
    public static func never() -> Observable<Element> {
        Observable { _ in Disposables.create() }
    }
}
