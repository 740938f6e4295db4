extension Observable {
    /// A sequence that completes at once, with no element.
    /// - Returns: The sequence.
    public static func empty() -> Observable<Element> {
        Observable { observer in
            observer.onCompleted()
            return Disposables.create()
        }
    }
}
