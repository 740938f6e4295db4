extension Observable {
    /// A sequence of one element, then completion.
    /// - Parameter element: The element.
    /// - Returns: The sequence.
    public static func just(_ element: Element) -> Observable<Element> {
        Observable { observer in
            observer.onNext(element)
            observer.onCompleted()
            return Disposables.create()
        }
    }
}
