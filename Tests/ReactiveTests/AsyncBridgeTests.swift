import RemoteModalLocking
import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Synchronization
import Testing

@Suite("Bridges to Swift concurrency")
struct AsyncBridgeTests {
    @Test func singleValueReturnsTheElement() async throws {
        let value = try await Single.just(42).value
        #expect(value == 42)
    }

    @Test func singleValueThrowsTheError() async {
        await #expect(throws: TestError.self) { try await Single<Int>.error(TestError()).value }
    }

    @Test func cancellingTheTaskDisposesTheSubscription() async throws {
        let disposed = Locked(false)
        let subscribed = AsyncStream<Void>.makeStream()
        let single = Single<Int>.create { _ in
            subscribed.continuation.yield()
            return Disposables.create { disposed.withLock { $0 = true } }
        }
        let task = Task { try await single.value }
        for await _ in subscribed.stream { break }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(disposed.withLock { $0 })
    }

    @Test func observableValuesIteratesAndFinishes() async throws {
        var collected: [Int] = []
        for try await value in Observable.from([1, 2, 3]).values { collected.append(value) }
        #expect(collected == [1, 2, 3])
    }

    @Test func leavingTheLoopDisposesTheSubscription() async throws {
        let subject = PublishSubject<Int>()
        let disposed = Locked(false)
        let source = subject.do(onSubscribed: { subject.onNext(1) }, onDispose: { disposed.withLock { $0 = true } })
        for try await value in source.values {
            #expect(value == 1)
            break
        }
        #expect(disposed.withLock { $0 })
    }

    @Test func fromAsyncResolvesAndDisposalCancels() async throws {
        let value = try await Single.fromAsync { 7 }.value
        #expect(value == 7)

        let cancelled = AsyncStream<Bool>.makeStream()
        let started = AsyncStream<Void>.makeStream()
        let subscription = Single<Int>.fromAsync {
            started.continuation.yield()
            do {
                try await Task.sleep(for: .seconds(30))
            } catch {
                cancelled.continuation.yield(Task.isCancelled)
                throw error
            }
            return 0
        }.subscribe()
        for await _ in started.stream { break }
        subscription.dispose()
        var sawCancel = false
        for await flag in cancelled.stream {
            sawCancel = flag
            break
        }
        #expect(sawCancel)
    }
}
