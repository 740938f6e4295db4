/// Percentiles of a set of latency samples.
public struct LatencyStats: Sendable, Equatable {
    /// How many samples.
    public let count: Int
    /// Median, in microseconds.
    public let p50: Double
    /// 99th percentile, in microseconds.
    public let p99: Double
    /// 99.9th percentile, in microseconds.
    public let p999: Double
    /// Largest sample, in microseconds.
    public let max: Double

    /// Computes the percentiles (nearest-rank) of samples in microseconds.
    /// - Parameter samples: The samples.
    public init(samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        func rank(_ fraction: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let index = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.max(0, Swift.min(sorted.count - 1, index))]
        }
        p50 = rank(0.5)
        p99 = rank(0.99)
        p999 = rank(0.999)
        max = sorted.last ?? 0
    }
}
