extension Maybe {
    /// Subscribes and waits for the outcome: the value, or `nil` when the maybe completes
    /// empty. Cancelling the task disposes the subscription and throws `CancellationError`.
    public var value: Element? {
        get async throws {
            try await asObservable().toArray().value.first
        }
    }
}
