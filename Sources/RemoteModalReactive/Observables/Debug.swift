import Foundation

extension ObservableType {
    /// Logs every event, the subscription and the disposal, each line prefixed with a
    /// timestamp and `identifier`: `2026-01-01 10:00:00.000: name -> Event next(1)`.
    /// - Parameters:
    ///   - identifier: A name for the sequence in the log (default: the call site).
    ///   - trimOutput: Cut event descriptions longer than 40 characters.
    ///   - file: The call site's file, for the default identifier.
    ///   - line: The call site's line, for the default identifier.
    ///   - log: Where lines go (default: standard output).
    /// - Returns: The same sequence.
    public func debug(
        _ identifier: String? = nil, trimOutput: Bool = false, file: String = #file, line: UInt = #line,
        log: @escaping @Sendable (String) -> Void = { print($0) }
    ) -> Observable<Element> {
        let name = identifier ?? "\((file as NSString).lastPathComponent):\(line)"
        let source = asObservable()
        @Sendable func write(_ message: String) {
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
            log("\(formatter.string(from: Date())): \(name) -> \(message)")
        }
        return Observable { observer in
            write("subscribed")
            let subscription = source.subscribe(
                AnyObserver { event in
                    var description = String(describing: event)
                    if trimOutput, description.count > 40 {
                        description = String(description.prefix(20)) + "..." + String(description.suffix(17))
                    }
                    write("Event \(description)")
                    observer.on(event)
                })
            return Disposables.create {
                write("isDisposed")
                subscription.dispose()
            }
        }
    }
}
