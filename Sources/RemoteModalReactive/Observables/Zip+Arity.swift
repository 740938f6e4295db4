extension Observable {
    /// Pairs the n-th elements of two sequences into tuples.
    /// - Parameters:
    ///   - a: The first sequence.
    ///   - b: The second sequence.
    /// - Returns: The zipped pairs.
    public static func zip<A: ObservableType, B: ObservableType>(_ a: A, _ b: B) -> Observable<Element>
    where Element == (A.Element, B.Element) {
        zip(a, b) { ($0, $1) }
    }

    /// Combines the n-th elements of three sequences.
    /// - Parameters:
    ///   - a: The first sequence.
    ///   - b: The second sequence.
    ///   - c: The third sequence.
    ///   - resultSelector: Builds the output from each triple.
    /// - Returns: The zipped sequence.
    public static func zip<A: ObservableType, B: ObservableType, C: ObservableType>(
        _ a: A, _ b: B, _ c: C,
        resultSelector: @escaping @Sendable (A.Element, B.Element, C.Element) throws -> Element
    ) -> Observable<Element> {
        Observable<[any Sendable]>.zipErased([
            a.asObservable().map { $0 as any Sendable }, b.asObservable().map { $0 as any Sendable },
            c.asObservable().map { $0 as any Sendable },
        ])
        .map { try resultSelector($0[0] as! A.Element, $0[1] as! B.Element, $0[2] as! C.Element) }
    }

    /// Combines the n-th elements of three sequences into tuples.
    /// - Parameters:
    ///   - a: The first sequence.
    ///   - b: The second sequence.
    ///   - c: The third sequence.
    /// - Returns: The zipped triples.
    public static func zip<A: ObservableType, B: ObservableType, C: ObservableType>(
        _ a: A, _ b: B, _ c: C
    ) -> Observable<Element> where Element == (A.Element, B.Element, C.Element) {
        zip(a, b, c) { ($0, $1, $2) }
    }

    /// Combines the n-th elements of four sequences.
    /// - Parameters:
    ///   - a: The first sequence.
    ///   - b: The second sequence.
    ///   - c: The third sequence.
    ///   - d: The fourth sequence.
    ///   - resultSelector: Builds the output from each quadruple.
    /// - Returns: The zipped sequence.
    public static func zip<A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType>(
        _ a: A, _ b: B, _ c: C, _ d: D,
        resultSelector: @escaping @Sendable (A.Element, B.Element, C.Element, D.Element) throws -> Element
    ) -> Observable<Element> {
        Observable<[any Sendable]>.zipErased([
            a.asObservable().map { $0 as any Sendable }, b.asObservable().map { $0 as any Sendable },
            c.asObservable().map { $0 as any Sendable }, d.asObservable().map { $0 as any Sendable },
        ])
        .map {
            try resultSelector($0[0] as! A.Element, $0[1] as! B.Element, $0[2] as! C.Element, $0[3] as! D.Element)
        }
    }

    /// Combines the n-th elements of four sequences into tuples.
    /// - Parameters:
    ///   - a: The first sequence.
    ///   - b: The second sequence.
    ///   - c: The third sequence.
    ///   - d: The fourth sequence.
    /// - Returns: The zipped quadruples.
    public static func zip<A: ObservableType, B: ObservableType, C: ObservableType, D: ObservableType>(
        _ a: A, _ b: B, _ c: C, _ d: D
    ) -> Observable<Element> where Element == (A.Element, B.Element, C.Element, D.Element) {
        zip(a, b, c, d) { ($0, $1, $2, $3) }
    }
}
