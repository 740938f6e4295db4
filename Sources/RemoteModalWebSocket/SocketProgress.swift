import Foundation

/// How much of what the host sent a TCP peer has acknowledged: a client's progress.
///
/// Once a client's receive buffer is full its TCP acknowledges nothing more until the
/// client reads, so a count that does not move means the client is not reading; one that
/// moves means it is, however slowly. The host-wide outgoing budget asks this of the
/// connections whose sockets are full before it picks one to cut.
enum SocketProgress {
    /// Offset of `tcpi_bytes_acked` (a `UInt64`, Linux 4.1 and later) in the kernel's
    /// `struct tcp_info` (`linux/tcp.h`; glibc's `netinet/tcp.h` declares an older, shorter
    /// struct without it, and the two headers cannot be included together).
    static var bytesAckedOffset: Int { 120 }
    /// Offset of `tcpi_bytes_received`, right after it.
    static var bytesReceivedOffset: Int { 128 }

    /// The bytes the peer of `socket` has acknowledged, or `nil` when the kernel does not
    /// say (not a TCP socket, or a kernel older than the field).
    static func bytesAcknowledged(_ socket: Int32) -> UInt64? {
        tcpInfoCounter(socket, at: bytesAckedOffset)
    }

    /// The bytes TCP has received from the peer of `socket` (whether or not the host has read
    /// them yet), or `nil` when the kernel does not say.
    static func bytesReceived(_ socket: Int32) -> UInt64? {
        tcpInfoCounter(socket, at: bytesReceivedOffset)
    }

    private static func tcpInfoCounter(_ socket: Int32, at offset: Int) -> UInt64? {
        guard socket >= 0 else { return nil }
        var info = [UInt8](repeating: 0, count: 256)
        var length = socklen_t(info.count)
        let result = info.withUnsafeMutableBytes { buffer in
            getsockopt(socket, Int32(IPPROTO_TCP), TCP_INFO, buffer.baseAddress, &length)
        }
        guard result == 0, Int(length) >= offset + 8 else { return nil }
        return info.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
    }
}

extension SocketProgress {
    /// `SIOCOUTQ` (`TIOCOUTQ`, `linux/sockios.h`): bytes in a TCP socket's send queue that the
    /// peer has not acknowledged.
    static var outputQueueRequest: UInt { 0x5411 }

    /// Bytes of `socket`'s send queue its peer has not acknowledged: kernel memory a client
    /// that does not read holds up (up to the send buffer), or `nil` when the kernel does not
    /// say.
    static func bytesUnacknowledged(_ socket: Int32) -> Int? {
        guard socket >= 0 else { return nil }
        var count: Int32 = 0
        guard ioctl(socket, outputQueueRequest, &count) == 0 else { return nil }
        return Int(count)
    }
}
