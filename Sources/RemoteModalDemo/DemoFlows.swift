import RemoteModalHost
import RemoteModalReactive

/// The demo host's flows (docs/protocol.md, "The demo host"), one root coordinator per session.
public enum DemoFlows {
    /// Starts a `DemoCoordinator` for every new session of a host.
    /// - Parameters:
    ///   - host: The host.
    ///   - login: The OpenID Connect login, or `nil` to leave the `login` control out.
    ///   - photoMaxBytes: The most bytes the `photo` picker accepts in all (default 10 MiB).
    ///   - options: Whether to add the `options` control (`OptionsCoordinator`).
    ///   - draftLifetime: Seconds a mail kept by "Save draft" is offered again (default 300).
    /// - Returns: A disposable that stops starting flows on new sessions.
    public static func install(
        on host: ModalHost, login: OpenIDLogin? = nil, photoMaxBytes: Int = 10 * 1_048_576, options: Bool = false,
        draftLifetime: Double = defaultDraftLifetime
    ) -> any Disposable {
        host.sessions.subscribe(onNext: { session in
            // The session owns its root coordinator until the session ends.
            session.coordinate(
                to: DemoCoordinator(
                    session: session, login: login, photoMaxBytes: photoMaxBytes, options: options,
                    draftLifetime: draftLifetime))
        })
    }

    /// How long "Save draft" keeps a mail by default, in seconds: 5 minutes, so that the
    /// next person at a shared screen does not find it.
    public static let defaultDraftLifetime = 300.0
}
