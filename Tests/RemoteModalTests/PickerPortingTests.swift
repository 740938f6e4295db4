import RemoteModalHost
import RemoteModalProtocol
import RemoteModalReactive
import RemoteModalTestSupport
import Testing

@Suite("Pickers keep upstream's values and spelling")
struct PickerPortingTests {
    @Test(arguments: [FailureCode.cancelled])
    func aCancelledPickerEmitsAnEmptySelection(code: FailureCode) throws {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker", "mediaPicker"])
        let photos = Outcome<[PickedFile]>()
        let media = Outcome<[PickedFile]>()
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client)))
            .asObservable().subscribe(photos.observer())
        _ = RemoteModal.mediaPicker(presenter: .session(harness.session(of: client)))
            .asObservable().subscribe(media.observer())
        harness.settle()
        let ids = client.presents.map(\.id)
        #expect(ids.count == 2)
        for id in ids { client.send(.failure(id: id, code: code, message: nil)) }
        harness.settle()
        #expect(photos.elements.map(\.count) == [0])
        #expect(photos.completed)
        #expect(media.elements.map(\.count) == [0])
        #expect(client.dismissals.map(\.reason) == [.resolved, .resolved])
    }

    @Test func aPickerThatFailsOtherwiseStillFails() {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker"])
        let photos = Outcome<[PickedFile]>()
        _ = RemoteModal.photoPicker(presenter: .session(harness.session(of: client)))
            .asObservable().subscribe(photos.observer())
        harness.settle()
        client.send(.failure(id: client.presents[0].id, code: .denied, message: "no access"))
        harness.settle()
        #expect(photos.elements.isEmpty)
        #expect(photos.error == .denied("no access"))
    }

    @Test func filtersAndMediaTypesSpellAsPhotoKitAndMediaPlayer() {
        var photo = PhotoPickerConfiguration()
        #expect(photo.filter == .images)
        photo.filter = .videos
        #expect(photo.filter?.kinds == ["video"])
        photo.filter = .any(of: [.images, .videos, .livePhotos])
        #expect(photo.filter?.kinds == ["image", "video"])
        photo.filter = ["image"]
        #expect(photo.filter == .images)
        photo.filter = nil
        #expect(photo.filter == nil)

        var media = MediaPickerConfiguration()
        #expect(media.types.names == ["audio"])
        media.types = .music
        #expect(media.types.names == ["music"])
        media.types = [.music, .podcast, .music]
        #expect(media.types.names == ["music", "podcast"])
        media.types = .anyVideo
        #expect(media.types.names == ["anyVideo"])
    }

    @Test func theFilterReachesTheWireAndNilOffersBoth() throws {
        let harness = HostHarness()
        let client = harness.connect(capabilities: ["photoPicker", "mediaPicker"])
        let session = harness.session(of: client)
        _ = RemoteModal.photoPicker(presenter: .session(session)) { $0.filter = .videos }.subscribe { _ in }
        _ = RemoteModal.photoPicker(presenter: .session(session)) { $0.filter = nil }.subscribe { _ in }
        _ = RemoteModal.mediaPicker(presenter: .session(session)) { $0.types = [.music, .anyVideo] }.subscribe { _ in }
        harness.settle()
        let modals = client.presents.map(\.modal)
        #expect(modals.count == 3)
        guard case .photoPicker(_, let videos, _, _) = modals[0], case .photoPicker(_, let both, _, _) = modals[1],
            case .mediaPicker(let types, _, _, _) = modals[2]
        else {
            Issue.record("unexpected kinds: \(modals)")
            return
        }
        #expect(videos == ["video"])
        #expect(both == [])
        #expect(types == ["music", "anyVideo"])
    }
}
