extension Observable {
    /// A sequence of the given elements, then completion.
    /// - Parameter elements: The elements, in order.
    /// - Returns: The sequence.
    public static func from<S: Sequence & Sendable>(_ elements: S) -> Observable<Element>
    where S.Element == Element {
        Observable { observer in
            let cancel = BooleanDisposable()
            for element in elements {
                if cancel.isDisposed { return cancel }
                observer.onNext(element)
            }
            observer.onCompleted()
            return cancel
        }
    }

    /// A sequence of the given elements, then completion.
    /// - Parameter elements: The elements, in order.
    /// - Returns: The sequence.
    public static func of(_ elements: Element...) -> Observable<Element> {
        from(elements)
    }
}
