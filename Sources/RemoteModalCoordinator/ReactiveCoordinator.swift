import Foundation
import RemoteModalLocking
import RemoteModalReactive
import Synchronization

/// Why a coordinator could not start.
public enum CoordinatorError: Error, Equatable, Sendable {
    /// A subclass did not override `start()`.
    case startNotImplemented(String)
}

/// A flow that coordinates child flows and ends with a typed result.
///
/// ``coordinate(to:)`` keeps the child while its flow runs and releases it when the flow
/// ends in any way: completion (after a value or without one), an error, or disposal of
/// the subscription. A value alone does not end the flow: upstream ReactiveCoordinator
/// released the child at its first value, which here needs a flow that ends there
/// (`take(1)`, as upstream's examples write anyway).
open class ReactiveCoordinator<Result: Sendable>: @unchecked Sendable {
    // `@unchecked Sendable`: the only mutable state is `children`, behind a mutex; the
    // rest is immutable. Subclasses must keep their own state thread-safe.

    /// The type of the flow's result, as upstream ReactiveCoordinator names it
    /// (`SomeCoordinator.CoordinationResult`).
    public typealias CoordinationResult = Result

    /// Identifies the coordinator among its parent's children (unique in the process).
    public let identifier = CoordinatorIdentifiers.next()
    /// Disposed when the coordinator is released.
    public let disposeBag = DisposeBag()
    private let children = Locked<[UUID: AnyObject]>([:])

    /// Creates a coordinator.
    public init() {}

    /// How many children are running now.
    public var childCount: Int { children.withLock { $0.count } }

    /// Starts the flow. Subclasses override this.
    /// - Returns: The flow's result.
    open func start() -> Observable<Result> {
        .error(CoordinatorError.startNotImplemented(String(describing: type(of: self))))
    }

    /// Starts a child and keeps it until its flow ends.
    /// - Parameter coordinator: The child.
    /// - Returns: The child's result.
    public func coordinate<ChildResult: Sendable>(to coordinator: ReactiveCoordinator<ChildResult>)
        -> Observable<ChildResult>
    {
        let id = coordinator.identifier
        return Observable.deferred { [weak self] in
            self?.children.withLock { $0[id] = coordinator }
            return coordinator.start().do(onDispose: { [weak self] in
                self?.children.withLock { _ = $0.removeValue(forKey: id) }
            })
        }
    }
}

/// Coordinator identifiers: a random half drawn once per process and a counter, so a
/// coordinator costs no read of the system's random source (`UUID()` opens and reads
/// `/dev/urandom` each time: three system calls per demo tap).
enum CoordinatorIdentifiers {
    private static let prefix: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
    private static let counter = Atomic<UInt64>(0)

    static func next() -> UUID {
        let count = counter.wrappingAdd(1, ordering: .relaxed).newValue
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { bytes in
            bytes.storeBytes(of: prefix, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: count.bigEndian, toByteOffset: 8, as: UInt64.self)
            // Version 4 and the RFC 4122 variant, so it reads as any random UUID.
            bytes[6] = bytes[6] & 0x0F | 0x40
            bytes[8] = bytes[8] & 0x3F | 0x80
        }
        return UUID(uuid: uuid)
    }
}
