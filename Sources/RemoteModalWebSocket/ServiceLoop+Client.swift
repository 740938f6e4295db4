import CRemoteModalLibWebSockets
import Foundation
import RemoteModalLocking
import RemoteModalLogging
import RemoteModalTransport
import Synchronization

/// Client connections (the kiosk, benchmarks, tests).
extension ServiceLoop {
    /// Opens a client connection; the id is valid at once, events follow on the loop.
    func connect(url: ParsedURL, subprotocol: String?, origin: String?, localAddress: String?) -> ConnectionID {
        let id = ConnectionID(rawValue: nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
        shared.withLock {
            $0.connects.append(
                ClientConnectRequest(
                    id: id, url: url, subprotocol: subprotocol, origin: origin, localAddress: localAddress))
        }
        wake()
        return id
    }

    // MARK: Client connections

    func startClientConnection(_ request: ClientConnectRequest) {
        guard let context = contextPointer.withLock({ $0?.pointer }) else { return }
        serviceThreadInfo[request.id] = ConnectionInfo(
            path: request.url.path, origin: request.origin, peerAddress: request.url.host,
            subprotocol: request.subprotocol)
        var info = lws_client_connect_info()
        let wsi: OpaquePointer? = request.url.host.withCString { host in
            request.url.path.withCString { path in
                request.url.hostHeader.withCString { hostHeader in
                    (request.origin ?? request.url.hostHeader).withCString { origin in
                        (request.subprotocol ?? "").withCString { subprotocol in
                            (request.localAddress ?? "").withCString { localAddress in
                                info.context = context
                                info.address = host
                                info.port = Int32(request.url.port)
                                info.path = path
                                info.host = hostHeader
                                info.origin = request.origin == nil ? nil : origin
                                info.protocol = request.subprotocol == nil ? nil : subprotocol
                                info.ssl_connection = request.url.secure ? rm_client_flag_use_ssl() : 0
                                info.opaque_user_data = UnsafeMutableRawPointer(bitPattern: UInt(request.id.rawValue))
                                info.retry_and_idle_policy = nil
                                info.iface = request.localAddress == nil ? nil : localAddress
                                return lws_client_connect_via_info(&info)
                            }
                        }
                    }
                }
            }
        }
        if wsi == nil, serviceThreadInfo[request.id] != nil {
            // lws reports most failures through CLIENT_CONNECTION_ERROR; this one it did not.
            serviceThreadInfo[request.id] = nil
            handlers.connectFailed(request.id, "lws_client_connect_via_info failed")
        }
    }
}
