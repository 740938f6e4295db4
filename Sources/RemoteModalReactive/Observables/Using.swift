extension Observable {
    /// Ties a resource to a subscription: the resource is created on subscribe and
    /// disposed when the sequence completes, fails, or is disposed.
    ///
    /// This is the backbone of every remote modal: creating the resource presents the
    /// modal, and disposing it dismisses the modal.
    /// - Parameters:
    ///   - resourceFactory: Creates the resource.
    ///   - observableFactory: Builds the sequence that uses the resource.
    /// - Returns: The sequence.
    public static func using<Resource: Disposable>(
        _ resourceFactory: @escaping @Sendable () throws -> Resource,
        observableFactory: @escaping @Sendable (Resource) throws -> Observable<Element>
    ) -> Observable<Element> {
        Observable { observer in
            let resource: Resource
            do {
                resource = try resourceFactory()
            } catch {
                observer.onError(error)
                return Disposables.create()
            }
            let subscription: any Disposable
            do {
                subscription = try observableFactory(resource).subscribe(observer)
            } catch {
                observer.onError(error)
                subscription = Disposables.create()
            }
            return Disposables.create(subscription, resource)
        }
    }
}
