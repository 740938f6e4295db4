extension ObservableType {
    /// A driver of this sequence: delivered on `scheduler`, shared, replaying the latest
    /// element; an error is replaced by `onErrorJustReturn` followed by completion.
    /// - Parameters:
    ///   - onErrorJustReturn: The element to end with instead of failing.
    ///   - scheduler: Where events are delivered (default: ``SharingScheduler/default``).
    /// - Returns: The driver.
    public func asDriver(
        onErrorJustReturn: Element, scheduler: any ImmediateSchedulerType = SharingScheduler.default
    ) -> Driver<Element> {
        Driver(unchecked: asObservable().observe(on: scheduler).catchAndReturn(onErrorJustReturn), scheduler: scheduler)
    }

    /// A driver of this sequence that continues with another driver on error.
    /// - Parameters:
    ///   - onErrorDriveWith: The driver to switch to.
    ///   - scheduler: Where events are delivered (default: ``SharingScheduler/default``).
    /// - Returns: The driver.
    public func asDriver(
        onErrorDriveWith: Driver<Element>, scheduler: any ImmediateSchedulerType = SharingScheduler.default
    ) -> Driver<Element> {
        asDriver(onErrorRecover: { _ in onErrorDriveWith }, scheduler: scheduler)
    }

    /// A driver of this sequence that recovers from an error with a driver built from it.
    /// - Parameters:
    ///   - onErrorRecover: Builds the driver to switch to.
    ///   - scheduler: Where events are delivered (default: ``SharingScheduler/default``).
    /// - Returns: The driver.
    public func asDriver(
        onErrorRecover: @escaping @Sendable (any Error) -> Driver<Element>,
        scheduler: any ImmediateSchedulerType = SharingScheduler.default
    ) -> Driver<Element> {
        Driver(
            unchecked: asObservable().observe(on: scheduler).catch { onErrorRecover($0).asObservable() },
            scheduler: scheduler)
    }

    /// A signal of this sequence: delivered on `scheduler`, shared, no replay; an error is
    /// replaced by `onErrorJustReturn` followed by completion.
    /// - Parameters:
    ///   - onErrorJustReturn: The element to end with instead of failing.
    ///   - scheduler: Where events are delivered (default: ``SharingScheduler/default``).
    /// - Returns: The signal.
    public func asSignal(
        onErrorJustReturn: Element, scheduler: any ImmediateSchedulerType = SharingScheduler.default
    ) -> Signal<Element> {
        Signal(unchecked: asObservable().observe(on: scheduler).catchAndReturn(onErrorJustReturn), scheduler: scheduler)
    }

    /// A signal of this sequence that recovers from an error with a signal built from it.
    /// - Parameters:
    ///   - onErrorRecover: Builds the signal to switch to.
    ///   - scheduler: Where events are delivered (default: ``SharingScheduler/default``).
    /// - Returns: The signal.
    public func asSignal(
        onErrorRecover: @escaping @Sendable (any Error) -> Signal<Element>,
        scheduler: any ImmediateSchedulerType = SharingScheduler.default
    ) -> Signal<Element> {
        Signal(
            unchecked: asObservable().observe(on: scheduler).catch { onErrorRecover($0).asObservable() },
            scheduler: scheduler)
    }
}

extension BehaviorRelay {
    /// The relay as a driver (a relay never fails).
    /// - Parameter scheduler: Where events are delivered (default: ``SharingScheduler/default``).
    /// - Returns: The driver.
    public func asDriver(scheduler: any ImmediateSchedulerType = SharingScheduler.default) -> Driver<Element> {
        Driver(unchecked: asObservable().observe(on: scheduler), scheduler: scheduler)
    }
}

extension PublishRelay {
    /// The relay as a signal (a relay never fails).
    /// - Parameter scheduler: Where events are delivered (default: ``SharingScheduler/default``).
    /// - Returns: The signal.
    public func asSignal(scheduler: any ImmediateSchedulerType = SharingScheduler.default) -> Signal<Element> {
        Signal(unchecked: asObservable().observe(on: scheduler), scheduler: scheduler)
    }
}
