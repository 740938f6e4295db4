extension Observable {
    /// Builds a fresh sequence for each subscription.
    /// - Parameter factory: Called on each subscription; a thrown error becomes the
    ///   subscription's error.
    /// - Returns: The sequence.
    public static func deferred(
        _ factory: @escaping @Sendable () throws -> Observable<Element>
    ) -> Observable<Element> {
        Observable { observer in
            do {
                return try factory().subscribe(observer)
            } catch {
                observer.onError(error)
                return Disposables.create()
            }
        }
    }
}
