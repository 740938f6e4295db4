import ModalProtocol
import Reactive
import RemoteModal

/// The demo host's flows (PROTOCOL.md, "The demo host"), installed on every session.
public enum DemoFlows {
    /// Starts the flows for every new session of a host.
    /// - Parameter host: The host.
    /// - Returns: A disposable that stops installing flows on new sessions.
    public static func install(on host: ModalHost) -> any Disposable {
        host.sessions.subscribe(onNext: { session in
            signIn(session)
            country(session)
        })
    }

    /// Runs `flow` for each tap on a control, one at a time, showing the control busy.
    static func bind(_ control: Control, _ session: Session, flow: @escaping @Sendable () -> Observable<Void>) {
        control.tap.flatMapFirst { _ in
            Observable.deferred {
                control.set(enabled: false, busy: true)
                return flow().do(onDispose: { control.set(enabled: true, busy: false) })
            }
        }
        .subscribe()
        .disposed(by: session.disposeBag)
    }

    /// `signIn`: an alert with e-mail and password; Sign In only while the form is valid.
    static func signIn(_ session: Session) {
        let control = session.control("signIn", title: "Sign in")
        bind(control, session) {
            RemoteModal.alert(
                String?.self, presenter: .session(session), title: "Sign in", message: "Please sign in",
                textFields: [.email(placeholder: "e-mail"), .password(placeholder: "password")],
                actions: [
                    .cancel(title: "Cancel", mapTo: nil),
                    DialogAction.default(title: "Sign In", map: { $0[0] })
                        .enabledIf { fields in fields[0].contains("@") && !fields[1].isEmpty }
                        .preferred(),
                ]
            )
            .map { email in
                if let email {
                    session.notify("Signed in as \(email)", level: .success)
                } else {
                    session.notify("Sign in cancelled", level: .info)
                }
            }
            .catch { error in
                session.notify("Sign in failed: \(error)", level: .error)
                return .empty()
            }
        }
    }

    /// `country`: an action sheet of countries, then a status with the choice.
    static func country(_ session: Session) {
        let control = session.control("country", title: "Choose country")
        bind(control, session) {
            RemoteModal.actionSheet(
                String?.self, presenter: .session(session), source: "country", title: "Choose a country",
                actions: [
                    .default(title: "France", mapTo: "France"), .default(title: "Japan", mapTo: "Japan"),
                    .default(title: "Brazil", mapTo: "Brazil"), .cancel(title: "Cancel", mapTo: nil),
                ]
            )
            .map { name in
                session.notify("Country: \(name ?? "none")", level: name == nil ? .info : .success)
            }
            .catch { error in
                session.notify("Choose country failed: \(error)", level: .error)
                return .empty()
            }
        }
    }
}
