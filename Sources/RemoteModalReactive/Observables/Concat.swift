extension Observable {
    /// Runs the sequences one after another.
    /// - Parameter sources: The sequences, in order.
    /// - Returns: The concatenated sequence.
    public static func concat(_ sources: [Observable<Element>]) -> Observable<Element> {
        Observable<Observable<Element>>.from(sources).concatMap { $0 }
    }

    /// Runs the sequences one after another.
    /// - Parameter sources: The sequences, in order.
    /// - Returns: The concatenated sequence.
    public static func concat(_ sources: Observable<Element>...) -> Observable<Element> {
        concat(sources)
    }
}

extension ObservableType {
    /// Continues with another sequence once this one completes.
    /// - Parameter second: The sequence to run next.
    /// - Returns: The concatenated sequence.
    public func concat<Other: ObservableType>(_ second: Other) -> Observable<Element>
    where Other.Element == Element {
        Observable.concat([asObservable(), second.asObservable()])
    }
}
