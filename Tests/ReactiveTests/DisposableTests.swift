import RemoteModalLocking
import RemoteModalReactive
import RemoteModalReactiveTestSupport
import Synchronization
import Testing

@Suite("Disposables")
struct DisposableTests {
    @Test func anonymousRunsOnce() {
        let count = Locked(0)
        let disposable = Disposables.create { count.withLock { $0 += 1 } }
        disposable.dispose()
        disposable.dispose()
        #expect(count.withLock { $0 } == 1)
    }

    @Test func compositeDisposesMembersAndLateInsertions() {
        let a = CountingResource()
        let b = CountingResource()
        let late = CountingResource()
        let composite = CompositeDisposable([a])
        let key = composite.insert(b)
        #expect(composite.count == 2)
        composite.remove(for: key!)
        #expect(b.count == 1)
        composite.dispose()
        #expect(a.count == 1)
        #expect(composite.insert(late) == nil)
        #expect(late.count == 1)
        composite.dispose()
        #expect(a.count == 1)
    }

    @Test func compositeOfManyRemovesByKeyAndDisposesTheRestInOrder() {
        let order = Locked<[Int]>([])
        let composite = CompositeDisposable()
        var keys: [CompositeDisposable.Key] = []
        for index in 0..<200 {
            keys.append(composite.insert(Disposables.create { order.withLock { $0.append(index) } })!)
        }
        // Removes three in four, out of order, past the point where the array is compacted.
        var removed = Set<Int>()
        for index in stride(from: 199, through: 0, by: -1) where index % 4 != 0 {
            composite.remove(for: keys[index])
            removed.insert(index)
        }
        composite.remove(for: keys[5])  // already removed: nothing happens
        #expect(order.withLock { $0.count } == removed.count)
        #expect(composite.count == 50)
        order.withLock { $0 = [] }
        composite.dispose()
        #expect(order.withLock { $0 } == Array(stride(from: 0, to: 200, by: 4)))
        #expect(composite.count == 0)
    }

    @Test func twoDisposablesTogetherDisposeOnceInOrder() {
        let order = Locked<[String]>([])
        let both = Disposables.create(
            Disposables.create { order.withLock { $0.append("first") } },
            Disposables.create { order.withLock { $0.append("second") } })
        both.dispose()
        both.dispose()
        #expect(order.withLock { $0 } == ["first", "second"])
    }

    @Test func serialDisposesThePrevious() {
        let a = CountingResource()
        let b = CountingResource()
        let c = CountingResource()
        let serial = SerialDisposable()
        serial.disposable = a
        serial.disposable = b
        #expect(a.count == 1)
        #expect(b.count == 0)
        serial.dispose()
        #expect(b.count == 1)
        serial.disposable = c
        #expect(c.count == 1)
    }

    @Test func singleAssignmentDisposesLateAssignment() {
        let a = CountingResource()
        let single = SingleAssignmentDisposable()
        single.dispose()
        single.setDisposable(a)
        #expect(a.count == 1)
        single.dispose()
        #expect(a.count == 1)
    }

    @Test func disposeBagDisposesOnDeinit() {
        let a = CountingResource()
        do {
            let bag = DisposeBag()
            a.disposed(by: bag)
            #expect(a.count == 0)
        }
        #expect(a.count == 1)
    }

    @Test func disposeRacingFromManyThreadsDisposesOnce() async {
        for _ in 0..<200 {
            let resource = CountingResource()
            let serial = SerialDisposable()
            serial.disposable = resource
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { serial.dispose() } }
            }
            #expect(resource.count == 1)
        }
    }
}
