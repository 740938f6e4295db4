import Locking
import Reactive
import ReactiveTestSupport
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
