import Dispatch
import Foundation
import RemoteModalLocking
import RemoteModalTransport
import Synchronization

/// Runs work on a server's service loop, as a swift-nio event loop does: the thread that
/// does the I/O also runs the application's state changes, so events need no hop and
/// frames produced in a turn go out without a wake-up.
///
/// Work from other threads is queued and wakes the loop once per batch
/// (`lws_cancel_service`). Work queued by the loop itself (a flow observing on the host's
/// scheduler, controls coalesced to one message) wakes nothing: the loop runs it at the end
/// of the turn, before it polls again, so its frames join the turn's writes. Before the loop starts, work runs at once on the caller (nothing
/// else runs yet); after it has exited, work runs on a serial fallback queue, in order, so
/// a host can still be shut down and released.
public final class LoopExecutor: HostExecutor {
    private enum Phase {
        case notStarted
        case running
        case exited
    }

    private struct State {
        var phase = Phase.notStarted
        var tasks: [@Sendable () -> Void] = []
        /// Queued by `executeAfterNextPoll` in this turn; they run at the end of the next.
        var afterPoll: [@Sendable () -> Void] = []
        /// Queued by `executeAfterNextPoll` in the turn before: they run at this turn's end.
        var dueAfterPoll: [@Sendable () -> Void] = []
        var wake: (@Sendable () -> Void)?
    }

    private let state = Locked(State())
    private let loopThread = Atomic<UInt>(0)
    private let turns = Atomic<UInt64>(0)
    private let fallback = DispatchQueue(label: "remote-modal.loop-fallback")
    private let fallbackKey = DispatchSpecificKey<Bool>()

    /// Creates an executor; a ``WebSocketServer`` created with it runs its work.
    public init() {
        fallback.setSpecific(key: fallbackKey, value: true)
    }

    /// Whether the calling thread is the executor's now: the service thread while the loop
    /// runs (before it starts, any caller; after it exits, the fallback queue).
    public var inExecutor: Bool {
        if loopThread.load(ordering: .acquiring) == UInt(pthread_self()) { return true }
        switch state.withLock({ $0.phase }) {
        case .notStarted: return true
        case .running: return false
        case .exited: return DispatchQueue.getSpecific(key: fallbackKey) == true
        }
    }

    /// Runs `work` on the loop soon, after work queued before it.
    /// - Parameter work: The work; it must not block (the loop's I/O waits for it).
    public func execute(_ work: @escaping @Sendable () -> Void) {
        enum Route {
            case now
            case queued(wake: (@Sendable () -> Void)?)
            case fallback
        }
        let onLoop = loopThread.load(ordering: .relaxed) == UInt(pthread_self())
        let route: Route = state.withLock { state in
            switch state.phase {
            case .notStarted:
                return .now
            case .running where onLoop:
                // The loop drains its list after this turn (`endOfTurn`): no wake-up.
                state.tasks.append(work)
                return .queued(wake: nil)
            case .running:
                state.tasks.append(work)
                // One wake-up covers every task added before the loop takes the list.
                return .queued(wake: state.tasks.count == 1 ? state.wake : nil)
            case .exited:
                return .fallback
            }
        }
        switch route {
        case .now: work()
        case .queued(let wake): wake?()
        case .fallback: fallback.async(execute: work)
        }
    }

    /// Runs `work` at the end of the loop's next turn, after that turn's I/O (queued on the
    /// loop; from another thread, or before or after the loop runs, as ``execute(_:)``).
    /// The loop does not sleep while such work waits.
    /// - Parameter work: The work; it must not block.
    public func executeAfterNextPoll(_ work: @escaping @Sendable () -> Void) {
        guard loopThread.load(ordering: .relaxed) == UInt(pthread_self()) else {
            execute(work)
            return
        }
        let queued = state.withLock { state -> Bool in
            guard case .running = state.phase else { return false }
            state.afterPoll.append(work)
            return true
        }
        if !queued { execute(work) }
    }

    /// Changes at every turn of the loop (counts the turns that ended).
    public var turn: UInt64 { turns.load(ordering: .relaxed) }

    // MARK: The loop's side (service thread)

    /// The loop starts on the calling thread; `wake` interrupts its wait.
    func loopStarted(wake: @escaping @Sendable () -> Void) {
        loopThread.store(UInt(pthread_self()), ordering: .releasing)
        let pending = state.withLock { state -> Bool in
            state.phase = .running
            state.wake = wake
            return !state.tasks.isEmpty
        }
        if pending { wake() }
    }

    /// Runs the work queued so far (called once per loop turn that was woken).
    func runPending() {
        drain(maxRounds: 1)
    }

    /// Runs what the turn queued, and what that queues in turn, before the loop polls
    /// again. A task that keeps queueing more is cut off after `maxRounds` so I/O is not
    /// starved; the loop is then woken so that its next poll does not sleep on the rest.
    /// - Parameter maxRounds: The most batches run in one call.
    func endOfTurn(maxRounds: Int = 16) {
        let due = state.withLock { state -> [@Sendable () -> Void] in
            defer { state.dueAfterPoll = [] }
            return state.dueAfterPoll
        }
        for task in due { task() }
        let left = drain(maxRounds: maxRounds)
        let (wake, waiting) = state.withLock { state -> ((@Sendable () -> Void)?, Bool) in
            state.dueAfterPoll = state.afterPoll
            state.afterPoll = []
            return (state.wake, !state.dueAfterPoll.isEmpty)
        }
        turns.add(1, ordering: .relaxed)
        // The next poll must not sleep on work left or due after it.
        if left || waiting { wake?() }
    }

    /// Runs up to `maxRounds` batches of queued work; returns whether work is left.
    @discardableResult
    private func drain(maxRounds: Int) -> Bool {
        for _ in 0..<maxRounds {
            let tasks = state.withLock { state -> [@Sendable () -> Void]? in
                guard !state.tasks.isEmpty else { return nil }
                defer { state.tasks.removeAll(keepingCapacity: true) }
                return state.tasks
            }
            guard let tasks else { return false }
            for task in tasks { task() }
        }
        return state.withLock { !$0.tasks.isEmpty }
    }

    /// The loop has stopped: later work goes to the fallback queue, and work still queued
    /// runs there first, in order.
    func loopExited() {
        let tasks = state.withLock { state -> [@Sendable () -> Void] in
            state.phase = .exited
            state.wake = nil
            defer {
                state.tasks = []
                state.dueAfterPoll = []
                state.afterPoll = []
            }
            return state.dueAfterPoll + state.tasks + state.afterPoll
        }
        loopThread.store(0, ordering: .releasing)
        fallback.sync {
            for task in tasks { task() }
        }
    }
}
