import Testing

@testable import RemoteModalHost

/// The short links' budget of wrong codes per address (issue #33, after round three).
@Suite("Short links: a budget of wrong codes per address")
struct MissBudgetTests {
    @Test func theLimitthMissLocksTheAddressOutForTheLockoutAndOnlyIt() {
        var budget = MissBudget(limit: 3, window: 60, lockout: 300)
        func miss(_ address: String, at now: Double) -> Bool { budget.miss(address, now: now) }
        #expect(!miss("a", at: 0))
        #expect(!miss("a", at: 1))
        #expect(budget.lockedOut("a", now: 2) == nil)
        #expect(miss("a", at: 2), "the third wrong code locks it out")
        #expect(budget.lockedOut("a", now: 3) == 299)
        #expect(budget.lockedOut("b", now: 3) == nil, "another address is not")
        #expect(!miss("a", at: 4), "locked out once, not again")
        #expect(budget.lockedOut("a", now: 302) == nil, "the lockout ends")
        #expect(!miss("a", at: 303), "and the count starts afresh")
    }

    @Test func missesOutsideTheWindowDoNotAddUp() {
        var budget = MissBudget(limit: 3, window: 60, lockout: 300)
        func miss(_ address: String, at now: Double) -> Bool { budget.miss(address, now: now) }
        for minute in 0..<10 {
            #expect(!miss("a", at: Double(minute) * 61))
            #expect(!miss("a", at: Double(minute) * 61 + 1))
        }
        #expect(budget.lockedOut("a", now: 700) == nil)
    }

    @Test func manyAddressesAreRememberedWithinABound() {
        var budget = MissBudget(limit: 3, window: 60, lockout: 300, maxAddresses: 100)
        for address in 0..<1_000 { _ = budget.miss("10.0.\(address / 256).\(address % 256)", now: Double(address)) }
        #expect(budget.count <= 100)
    }

    @Test func noLimitMeansNoLockout() {
        var budget = MissBudget(limit: 0, window: 60, lockout: 300)
        func miss(_ address: String, at now: Double) -> Bool { budget.miss(address, now: now) }
        for second in 0..<100 { #expect(!miss("a", at: Double(second))) }
        #expect(budget.lockedOut("a", now: 100) == nil)
    }
}
