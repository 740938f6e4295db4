import CRemoteModalLibWebSockets
import Glibc
import RemoteModalLocking

/// Where lws keeps each server connection's receive buffer (`rx_ubuf`): fixed slots in one
/// reservation of demand-paged address space, so a buffer costs memory only for the pages lws
/// writes to.
///
/// lws 4.1.6 mallocs `rx_buffer_size + LWS_PRE + 4` bytes per connection at the upgrade and keeps
/// them for the connection's life (lib/roles/ws/ops-ws.c, `lws_server_init_wsi_for_ws`). From
/// glibc's heap every byte of it is resident (the chunks sit side by side, so every page holds
/// a chunk header): 4 KiB of an idle session's 12 (docs/benchmarks.md, "Memory per idle
/// session"). Yet a server connection's data frames never pass through it: lws unmasks their
/// payload in its per-thread buffer and hands it over from there; only control frames' payloads
/// (at most 125 bytes, just past `LWS_PRE`) are copied into it. In a slot nothing is resident
/// until a ping with a payload or a close frame arrives (then one page), and a slot given back is
/// emptied with `MADV_DONTNEED` before it is reused. The size of the buffer then costs nothing
/// idle, so lws may read 64 KiB a turn (`receiveBufferBytes`) for uploads.
///
/// Installed once, before the first context, with `lws_set_allocator`: every lws allocation
/// passes through `lwsAllocate`, and all but `rx_ubuf` go to `realloc` and `free` as lws's own
/// allocator does. Buffers larger than a slot, and any once the slots run out or the reservation
/// fails, come from the heap as before.
final class ReceiveBufferArena: Sendable {
    /// Bytes in one slot: a 64 KiB receive buffer, lws's head room and its 4 spare bytes, in
    /// whole pages.
    let slotBytes: Int
    /// Slots in the reservation (about 4.3 GiB of address space, none of it committed).
    let slotCount: Int
    /// The reservation's first address, 0 when it could not be made.
    let base: UInt
    private let state = Locked(State())

    private struct State {
        /// Slots given back, reused last in, first out.
        var free: [Int] = []
        /// Slots never handed out start here.
        var nextUnused = 0
        var inUse = 0
    }

    /// The arena lws allocates from once `install()` ran.
    static let shared = ReceiveBufferArena(slotCount: 65_536)

    init(slotCount: Int) {
        let page = max(4_096, sysconf(Int32(_SC_PAGESIZE)))
        slotBytes = (65_536 + rm_lws_pre() + 4 + page - 1) / page * page
        self.slotCount = slotCount
        let reserved = mmap(
            nil, slotBytes * slotCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        if let reserved, reserved != UnsafeMutableRawPointer(bitPattern: -1) {
            base = UInt(bitPattern: reserved)
        } else {
            base = 0
        }
    }

    deinit {
        if base != 0 { munmap(UnsafeMutableRawPointer(bitPattern: base), slotBytes * slotCount) }
    }

    /// Routes lws's allocations through `shared` (once per process; later calls do nothing).
    /// `REMOTE_MODAL_RECEIVE_ARENA=0` in the environment leaves lws's own allocator, for
    /// before/after measurements (docs/benchmarks.md).
    static func install() {
        _ = installed
    }

    private static let installed: Bool = {
        if let setting = getenv("REMOTE_MODAL_RECEIVE_ARENA"), String(cString: setting) == "0" { return false }
        lws_set_allocator(lwsAllocate)
        return true
    }()

    /// Slots handed out and not given back (tests, diagnostics).
    var slotsInUse: Int { state.withLock { $0.inUse } }

    /// Whether `pointer` is the start of one of this arena's slots or inside one.
    func owns(_ pointer: UnsafeMutableRawPointer) -> Bool {
        let address = UInt(bitPattern: pointer)
        return base != 0 && address >= base && address < base + UInt(slotBytes * slotCount)
    }

    /// A slot, or nil when there is no reservation or every slot is taken.
    func take() -> UnsafeMutableRawPointer? {
        guard base != 0 else { return nil }
        let index: Int? = state.withLock { state in
            if let reused = state.free.popLast() {
                state.inUse += 1
                return reused
            }
            guard state.nextUnused < slotCount else { return nil }
            state.nextUnused += 1
            state.inUse += 1
            return state.nextUnused - 1
        }
        return index.flatMap { UnsafeMutableRawPointer(bitPattern: base + UInt($0 * slotBytes)) }
    }

    /// Gives a slot back, its pages returned to the kernel first (the next owner finds zeros).
    func release(_ pointer: UnsafeMutableRawPointer) {
        let index = Int(UInt(bitPattern: pointer) - base) / slotBytes
        guard let start = UnsafeMutableRawPointer(bitPattern: base + UInt(index * slotBytes)) else { return }
        _ = madvise(start, slotBytes, MADV_DONTNEED)
        state.withLock { state in
            state.free.append(index)
            state.inUse -= 1
        }
    }
}

/// lws's allocator (`lws_set_allocator`): `realloc` semantics, with `rx_ubuf` from the arena.
private func lwsAllocate(
    _ pointer: UnsafeMutableRawPointer?, _ size: Int, _ reason: UnsafePointer<CChar>?
) -> UnsafeMutableRawPointer? {
    let arena = ReceiveBufferArena.shared
    if let pointer, arena.owns(pointer) {
        if size == 0 {
            arena.release(pointer)
            return nil
        }
        if size <= arena.slotBytes { return pointer }
        guard let moved = malloc(size) else { return nil }
        memcpy(moved, pointer, arena.slotBytes)
        arena.release(pointer)
        return moved
    }
    if size == 0 {
        free(pointer)
        return nil
    }
    if pointer == nil, size <= arena.slotBytes, let reason, strcmp(reason, "rx_ubuf") == 0, let slot = arena.take() {
        return slot
    }
    return realloc(pointer, size)
}
