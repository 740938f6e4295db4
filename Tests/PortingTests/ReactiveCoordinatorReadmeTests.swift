import RemoteModalCoordinator
import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import Testing

/// ReactiveCoordinator's README ("Replace Delegation with ReactiveCoordinator"), ported.
/// Changes: the view controllers become remote modals on the coordinator's session (the
/// country list is an action sheet), so `rootViewController` becomes a `Session`.
enum ChooseCountryCoordinationResult: Sendable, Equatable {
    case country(String)
    case cancel
}

final class ChooseCountryCoordinator: SessionCoordinator<ChooseCountryCoordinationResult>, @unchecked Sendable {
    override func start() -> Observable<CoordinationResult> {
        let sheet = RemoteModal.actionSheet(
            presenter: presenter, title: "Choose a country",
            actions: [
                .default(title: "France", mapTo: CoordinationResult.country("France")),
                .default(title: "Japan", mapTo: CoordinationResult.country("Japan")),
                .cancel(title: "Close", mapTo: CoordinationResult.cancel),
            ])
        return sheet.take(1)
    }
}

/// The README's `HolidaysViewModel`: inputs and outputs as relays.
final class HolidaysViewModel: Sendable {
    let chooseCountry = PublishRelay<Void>()
    let selectedCountry = BehaviorRelay<String>(value: "none")
}

final class HolidaysCoordinator: SessionCoordinator<Void>, @unchecked Sendable {
    let viewModel = HolidaysViewModel()

    override func start() -> Observable<Void> {
        viewModel.chooseCountry
            .flatMap { [weak self] _ -> Observable<String?> in
                guard let self = self else { return .empty() }
                return self.coordinateToChooseCountry()
            }
            .filter { $0 != nil }
            .map { $0! }
            .bind(to: viewModel.selectedCountry)
            .disposed(by: disposeBag)

        return Observable.never()
    }

    // MARK: - Coordination
    private func coordinateToChooseCountry() -> Observable<String?> {
        let chooseCountryCoordinator = ChooseCountryCoordinator(session: session)
        return coordinate(to: chooseCountryCoordinator)
            .map { result in
                switch result {
                case .country(let country): return country
                case .cancel: return nil
                }
            }
    }
}

@Suite("ReactiveCoordinator README example")
struct ReactiveCoordinatorReadmeTests {
    @Test func choosingACountryReachesTheViewModelAndReleasesTheChild() {
        let harness = PortingHarness()
        let holidays = HolidaysCoordinator(session: harness.session)
        let subscription = holidays.start().subscribe()
        holidays.viewModel.chooseCountry.accept(())
        harness.settle()
        #expect(harness.client.presents.map(\.modal.title) == ["Choose a country"])
        #expect(holidays.childCount == 1)
        harness.choose("m1", action: 1)
        #expect(holidays.viewModel.selectedCountry.value == "Japan")
        #expect(holidays.childCount == 0)
        holidays.viewModel.chooseCountry.accept(())
        harness.settle()
        harness.choose("m2", action: 2)
        #expect(holidays.viewModel.selectedCountry.value == "Japan", "cancel keeps the previous country")
        #expect(holidays.childCount == 0)
        subscription.dispose()
    }
}
