extension Observable {
    /// A sequence that fails at once.
    /// - Parameter error: The error.
    /// - Returns: The sequence.
    public static func error(_ error: any Error) -> Observable<Element> {
        Observable { observer in
            observer.onError(error)
            return Disposables.create()
        }
    }
}
