/// Errors raised by the reactive operators themselves.
public enum RxError: Error, Equatable, Sendable {
    /// `timeout` saw no element within its due time.
    case timeout
    /// A ``Single`` or `asSingle()` source completed without an element.
    case noElements
    /// A ``Single`` or `asSingle()` source emitted more than one element.
    case moreThanOneElement
    /// A subscription was disposed before it produced a value (async bridges).
    case disposed
}
