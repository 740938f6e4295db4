import Foundation
import Synchronization
import Testing

@testable import RemoteModalWebSocket

/// The loop's executor: work from other threads wakes the loop once per batch; work the
/// loop queues for itself wakes nothing and runs at the end of the turn, in order.
@Suite("Loop executor wake-ups")
struct LoopExecutorTests {
    /// Runs `body` on a thread of its own that plays the loop, and waits for it.
    private func onLoopThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.start()
        done.wait()
    }

    @Test func workQueuedByTheLoopWakesNothingAndRunsAtTheEndOfTheTurn() {
        let executor = LoopExecutor()
        let wakes = Atomic<Int>(0)
        let order = Mutex<[Int]>([])
        onLoopThread {
            executor.loopStarted { wakes.add(1, ordering: .relaxed) }
            executor.execute {
                order.withLock { $0.append(1) }
                // Queued by queued work: runs in the same end of turn, after it.
                executor.execute { order.withLock { $0.append(3) } }
            }
            executor.execute { order.withLock { $0.append(2) } }
            #expect(order.withLock { $0 }.isEmpty)
            executor.endOfTurn()
        }
        #expect(order.withLock { $0 } == [1, 2, 3])
        #expect(wakes.load(ordering: .relaxed) == 0)
    }

    @Test func workFromAnotherThreadWakesTheLoopOncePerBatch() {
        let executor = LoopExecutor()
        let wakes = Atomic<Int>(0)
        let ran = Atomic<Int>(0)
        onLoopThread { executor.loopStarted { wakes.add(1, ordering: .relaxed) } }
        for _ in 0..<5 { executor.execute { ran.add(1, ordering: .relaxed) } }
        #expect(wakes.load(ordering: .relaxed) == 1)
        #expect(ran.load(ordering: .relaxed) == 0)
        executor.runPending()
        #expect(ran.load(ordering: .relaxed) == 5)
        executor.execute { ran.add(1, ordering: .relaxed) }
        #expect(wakes.load(ordering: .relaxed) == 2)
    }

    @Test func aTaskThatKeepsQueueingIsCutOffAndTheLoopIsWoken() {
        let executor = LoopExecutor()
        let wakes = Atomic<Int>(0)
        let runs = Atomic<Int>(0)
        onLoopThread {
            executor.loopStarted { wakes.add(1, ordering: .relaxed) }
            @Sendable func again() {
                runs.add(1, ordering: .relaxed)
                executor.execute(again)
            }
            executor.execute(again)
            executor.endOfTurn(maxRounds: 4)
        }
        #expect(runs.load(ordering: .relaxed) == 4)
        // Work is left: the loop must not sleep in its next poll.
        #expect(wakes.load(ordering: .relaxed) == 1)
    }

    @Test func workForAfterTheNextPollSkipsOneTurnAndKeepsTheLoopAwake() {
        let executor = LoopExecutor()
        let wakes = Atomic<Int>(0)
        let order = Mutex<[String]>([])
        onLoopThread {
            executor.loopStarted { wakes.add(1, ordering: .relaxed) }
            let first = executor.turn
            executor.executeAfterNextPoll { order.withLock { $0.append("after poll") } }
            executor.execute { order.withLock { $0.append("this turn") } }
            executor.endOfTurn()
            // Not in the turn that queued it, and the next poll must not sleep on it.
            #expect(order.withLock { $0 } == ["this turn"])
            #expect(wakes.load(ordering: .relaxed) == 1)
            #expect(executor.turn != first)
            // What the next turn's I/O queued runs before it; nothing is left to wake for.
            executor.execute { order.withLock { $0.append("next turn's I/O") } }
            executor.endOfTurn()
            #expect(order.withLock { $0 } == ["this turn", "after poll", "next turn's I/O"])
            #expect(wakes.load(ordering: .relaxed) == 1)
        }
    }
}
