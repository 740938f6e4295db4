/// Where ``Driver`` and ``Signal`` deliver their events unless told otherwise.
public enum SharingScheduler {
    /// The default delivery scheduler: one serial dispatch queue for the whole process,
    /// labelled `Reactive.SharingScheduler`, so every driver and signal created without a
    /// `scheduler:` argument delivers in one order, one event at a time (the role
    /// RxSwift's `MainScheduler` plays).
    ///
    /// A host that serves its sessions from one executor should pass that executor's
    /// scheduler explicitly instead (the host's service loop will take this role once it
    /// exposes one); tests pass a `TestScheduler`.
    public static let `default`: any ImmediateSchedulerType = SerialDispatchQueueScheduler(
        label: "Reactive.SharingScheduler")
}
